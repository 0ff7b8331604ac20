import Foundation
import HeraldCrypto
import XCTest

/// argon2id through libargon2: round trips, wrong passwords, the PHC format's checks, and Debian's
/// `argon2` command-line tool as an independent oracle (it links the same reference code, but reads
/// and writes the PHC text itself, so the format and the parameters' order are checked too).
final class Argon2idTests: XCTestCase {
    /// Cheap: the tests check behaviour, not cost.
    private let cheap = Argon2id.Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)

    func testHashVerifiesItsPasswordAndNoOther() {
        let encoded = Argon2id.hash(password: "correct horse battery staple", parameters: cheap)
        XCTAssertTrue(encoded.hasPrefix("$argon2id$v=19$m=64,t=1,p=1$"), encoded)
        XCTAssertTrue(Argon2id.verify(encoded: encoded, password: "correct horse battery staple"))
        XCTAssertFalse(Argon2id.verify(encoded: encoded, password: "correct horse battery stapler"))
        XCTAssertFalse(Argon2id.verify(encoded: encoded, password: ""))
        XCTAssertEqual(Argon2id.parameters(of: encoded), cheap)
    }

    func testEachHashHasItsOwnSalt() {
        let first = Argon2id.hash(password: "same", parameters: cheap)
        let second = Argon2id.hash(password: "same", parameters: cheap)
        XCTAssertNotEqual(first, second)
        XCTAssertTrue(Argon2id.verify(encoded: second, password: "same"))
    }

    func testStandardParametersRoundTrip() {
        let encoded = Argon2id.hash(password: "pässwörd ✓")
        XCTAssertTrue(encoded.hasPrefix("$argon2id$v=19$m=65536,t=1,p=1$"), encoded)
        XCTAssertTrue(Argon2id.verify(encoded: encoded, password: "pässwörd ✓"))
        XCTAssertFalse(Argon2id.verify(encoded: encoded, password: "passwörd ✓"))
    }

    func testMalformedOrForeignHashesAreRefused() {
        let good = Argon2id.hash(password: "x", salt: Array("0123456789abcdef".utf8), parameters: cheap)
        let salt = "MDEyMzQ1Njc4OWFiY2RlZg"
        let hash = String(good.split(separator: "$").last!)
        let bad = [
            "hunter22",
            "",
            "$argon2i$v=19$m=64,t=1,p=1$\(salt)$\(hash)",
            "$argon2id$v=16$m=64,t=1,p=1$\(salt)$\(hash)",
            "$argon2id$m=64,t=1,p=1$\(salt)$\(hash)",
            "$argon2id$v=19$t=1,m=64,p=1$\(salt)$\(hash)",
            "$argon2id$v=19$m=64,t=1$\(salt)$\(hash)",
            "$argon2id$v=19$m=64,t=1,p=1,x=2$\(salt)$\(hash)",
            "$argon2id$v=19$m=4194304,t=1,p=1$\(salt)$\(hash)",
            "$argon2id$v=19$m=64,t=0,p=1$\(salt)$\(hash)",
            "$argon2id$v=19$m=064,t=1,p=1$\(salt)$\(hash)",
            "$argon2id$v=19$m=64,t=1,p=1$c2FsdA$\(hash)",
            "$argon2id$v=19$m=64,t=1,p=1$\(salt)$\(hash)=",
            "$argon2id$v=19$m=64,t=1,p=1$\(salt)$\(hash)$",
            "$argon2id$v=19$m=64,t=1,p=1$\(salt)-$\(hash)",
        ]
        XCTAssertNotNil(Argon2id.parameters(of: good))
        XCTAssertTrue(Argon2id.verify(encoded: good, password: "x"))
        for text in bad {
            XCTAssertNil(Argon2id.parameters(of: text), text)
            XCTAssertFalse(Argon2id.verify(encoded: text, password: "x"), text)
        }
    }

    /// Debian's `argon2` tool hashes the same password with the same salt and parameters: its PHC
    /// string must be ours, character for character, and each side must verify the other's.
    func testDebiansArgon2ToolAgrees() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/argon2") else {
            throw XCTSkip("the argon2 tool is not installed (Debian: apt-get install argon2; `make deps-test` does)")
        }
        let salt = "herald-salt-0123"
        for (password, parameters) in [
            ("correct horse battery staple", cheap), ("pässwörd ✓", Argon2id.Parameters(memoryKiB: 256, iterations: 3, parallelism: 2)),
        ] {
            let theirs = try toolHash(password: password, salt: salt, parameters: parameters)
            XCTAssertEqual(Argon2id.hash(password: password, salt: Array(salt.utf8), parameters: parameters), theirs)
            XCTAssertTrue(Argon2id.verify(encoded: theirs, password: password))
            XCTAssertFalse(Argon2id.verify(encoded: theirs, password: password + "!"))
            XCTAssertEqual(Argon2id.parameters(of: theirs), parameters)
        }
    }

    /// `argon2 SALT -id -t T -k KiB -p P -l 32 -e`, the password on stdin: prints the PHC string.
    private func toolHash(password: String, salt: String, parameters: Argon2id.Parameters) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/argon2")
        process.arguments = [
            salt, "-id", "-t", "\(parameters.iterations)", "-k", "\(parameters.memoryKiB)", "-p", "\(parameters.parallelism)", "-l", "32",
            "-e",
        ]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(password.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
