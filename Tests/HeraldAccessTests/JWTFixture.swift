import Foundation
import XCTest

/// Keys made with the `openssl` command (RSA 2048 twice, EC P-256 and P-384, a self-signed
/// certificate of the first RSA key, and an HS secret file) in a temporary folder, and the tokens
/// PyJWT minted with them (Tests/oracles/mint_jwts.py, run by the checkout's `.venv` python, which
/// `make deps-test` fills from PIP_PACKAGES): Herald's verifier against an independent signer.
struct JWTFixture: Sendable {
    /// The tests' injected clock: tokens are minted relative to it, never to the real time.
    static let nowSeconds: Int64 = 1_800_000_000
    static var nowMilliseconds: Int64 { nowSeconds * 1000 }

    let folder: URL
    /// Case name (mint_jwts.py's) → compact token.
    let tokens: [String: String]

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func token(_ name: String) throws -> String {
        try XCTUnwrap(tokens[name], "mint_jwts.py made no token \(name)")
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Skips the test when openssl or the venv's PyJWT is missing.
    static func make() throws -> JWTFixture {
        guard let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first(where: FileManager.default.isExecutableFile) else {
            throw XCTSkip("openssl is not installed (Debian: the openssl package; `make deps-test` installs it)")
        }
        let python = checkout.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python), (try? run(python, ["-c", "import jwt, cryptography"])) != nil else {
            throw XCTSkip("PyJWT is not in .venv (`make deps-test` installs PIP_PACKAGES)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-jwt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let fixture = JWTFixture(folder: folder, tokens: [:])
        do {
            for (name, options) in [
                ("rsa", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]),
                ("rsa2", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]),
                ("ec256", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]),
                ("ec384", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]),
            ] {
                try run(openssl, ["genpkey"] + options + ["-out", fixture.path("\(name).key")])
                try run(openssl, ["pkey", "-in", fixture.path("\(name).key"), "-pubout", "-out", fixture.path("\(name).pub")])
            }
            try run(
                openssl,
                [
                    "req", "-x509", "-key", fixture.path("rsa.key"), "-subj", "/CN=Herald JWT test", "-days", "2", "-out",
                    fixture.path("rsa.crt"),
                ])
            try run(openssl, ["rand", "-base64", "-out", fixture.path("secret.txt"), "48"])
            let script = checkout.appendingPathComponent("Tests/oracles/mint_jwts.py").path
            try run(python, [script, folder.path, String(nowSeconds)])
            let data = try Data(contentsOf: folder.appendingPathComponent("tokens.json"))
            return JWTFixture(folder: folder, tokens: try JSONDecoder().decode([String: String].self, from: data))
        } catch {
            fixture.remove()
            throw error
        }
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    @discardableResult
    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failed(
                description: "\(executable) \(arguments.joined(separator: " ")) failed: \(String(decoding: output, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }
}
