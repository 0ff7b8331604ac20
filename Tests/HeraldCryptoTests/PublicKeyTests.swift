import Foundation
import HeraldCrypto
import XCTest

/// Public keys made and signatures computed by the `openssl` command (an independent signer), then
/// loaded and verified by `PublicKey`; and the keys it must refuse, each with its reason.
final class PublicKeyTests: XCTestCase {
    private var folder: URL!
    private var openssl = ""

    override func setUpWithError() throws {
        guard let path = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first(where: FileManager.default.isExecutableFile) else {
            throw XCTSkip("openssl is not installed (Debian: the openssl package; `make deps-test` installs it)")
        }
        openssl = path
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    private func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: folder.appendingPathComponent(name))) }

    @discardableResult
    private func run(_ arguments: String...) throws -> String { try run(arguments) }

    /// Runs `openssl` in the folder; fails the test when it fails. Its output (stdout and stderr).
    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "openssl \(arguments.joined(separator: " ")): \(text)")
        return text
    }

    /// A key pair `name`.key / `name`.pub made by `openssl genpkey` with `options`.
    private func makeKey(_ name: String, _ options: String...) throws -> PublicKey {
        try run(["genpkey"] + options + ["-out", "\(name).key"])
        try run("pkey", "-in", "\(name).key", "-pubout", "-out", "\(name).pub")
        return try PublicKey(pem: bytes("\(name).pub"))
    }

    private func refusal(_ make: () throws -> PublicKey) -> String? {
        do {
            _ = try make()
            return nil
        } catch {
            return (error as? PublicKeyError)?.description
        }
    }

    func testRSASignaturesMadeByOpenSSLVerify() throws {
        let key = try makeKey("rsa", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048")
        XCTAssertEqual(key.kind, .rsa(bits: 2048))
        let message = Array("header.payload".utf8)
        try Data(message).write(to: folder.appendingPathComponent("message"))
        try run("dgst", "-sha256", "-sign", "rsa.key", "-out", "pkcs1-256", "message")
        try run("dgst", "-sha512", "-sign", "rsa.key", "-out", "pkcs1-512", "message")
        try run(
            "dgst", "-sha256", "-sign", "rsa.key", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:digest", "-out",
            "pss-256",
            "message")
        try run(
            "dgst", "-sha256", "-sign", "rsa.key", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:max", "-out", "pss-max",
            "message")
        let pkcs1 = try bytes("pkcs1-256")
        XCTAssertTrue(key.verify(pkcs1, of: message, scheme: .rsaPKCS1v15(.sha256)))
        XCTAssertTrue(key.verify(try bytes("pkcs1-512"), of: message, scheme: .rsaPKCS1v15(.sha512)))
        XCTAssertFalse(key.verify(pkcs1, of: message, scheme: .rsaPKCS1v15(.sha384)), "another hash")
        XCTAssertFalse(key.verify(pkcs1, of: message + [0x2E], scheme: .rsaPKCS1v15(.sha256)), "another message")
        XCTAssertFalse(key.verify(pkcs1, of: message, scheme: .rsaPSS(.sha256)), "another padding")
        XCTAssertFalse(key.verify(pkcs1, of: message, scheme: .ecdsaRaw(.sha256)), "a scheme that does not fit the key")
        XCTAssertFalse(key.verify([], of: message, scheme: .rsaPKCS1v15(.sha256)))
        XCTAssertTrue(key.verify(try bytes("pss-256"), of: message, scheme: .rsaPSS(.sha256)))
        XCTAssertFalse(key.verify(try bytes("pss-256"), of: message, scheme: .rsaPKCS1v15(.sha256)))
        // RFC 7518 3.5: the salt is as long as the hash; a longer one is not JOSE's PSS.
        XCTAssertFalse(key.verify(try bytes("pss-max"), of: message, scheme: .rsaPSS(.sha256)))

        // The same key from its modulus and exponent (as a JWK gives them) verifies the same signature.
        let modulusLine = try run("rsa", "-pubin", "-in", "rsa.pub", "-modulus", "-noout")
        let hex = modulusLine.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "Modulus=", with: "")
        let modulus = stride(from: 0, to: hex.count, by: 2).map { offset -> UInt8 in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
        XCTAssertEqual(modulus.count, 256)
        // genpkey's default public exponent: 65537.
        let rebuilt = try PublicKey(rsaModulus: modulus, exponent: [0x01, 0x00, 0x01])
        XCTAssertEqual(rebuilt.kind, .rsa(bits: 2048))
        XCTAssertTrue(rebuilt.verify(pkcs1, of: message, scheme: .rsaPKCS1v15(.sha256)))
        // Another exponent is another key; libcrypto allows a small odd one (3), never an even one.
        XCTAssertFalse(try PublicKey(rsaModulus: modulus, exponent: [0x03]).verify(pkcs1, of: message, scheme: .rsaPKCS1v15(.sha256)))
        XCTAssertTrue(
            refusal { try PublicKey(rsaModulus: modulus, exponent: [0x01, 0x00, 0x02]) }?.hasPrefix("the key is not valid") == true)
    }

    func testECKeysAndCertificates() throws {
        let p256 = try makeKey("ec256", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256")
        XCTAssertEqual(p256.kind, .ec(.p256))
        XCTAssertTrue(p256.fits(.ecdsaRaw(.sha256)))
        XCTAssertFalse(p256.fits(.ecdsaRaw(.sha384)))
        XCTAssertFalse(p256.fits(.rsaPKCS1v15(.sha256)))
        let p384 = try makeKey("ec384", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384")
        XCTAssertEqual(p384.kind, .ec(.p384))
        XCTAssertTrue(p384.fits(.ecdsaRaw(.sha384)))
        // A raw signature of the wrong length for the curve is refused before libcrypto sees it.
        XCTAssertFalse(p256.verify([UInt8](repeating: 1, count: 63), of: [1], scheme: .ecdsaRaw(.sha256)))
        XCTAssertFalse(p256.verify([UInt8](repeating: 0, count: 64), of: [1], scheme: .ecdsaRaw(.sha256)))

        try run("req", "-x509", "-key", "ec256.key", "-subj", "/CN=Herald test", "-days", "2", "-out", "ec256.crt")
        XCTAssertEqual(try PublicKey(pem: bytes("ec256.crt")).kind, .ec(.p256))
    }

    func testKeysThatAreRefused() throws {
        try run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", "short.key"])
        try run(["pkey", "-in", "short.key", "-pubout", "-out", "short.pub"])
        XCTAssertEqual(
            refusal { try PublicKey(pem: self.bytes("short.pub")) }, "an RSA key of 1024 bits is too short: at least 2048 are needed")
        try run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-521", "-out", "p521.key"])
        try run(["pkey", "-in", "p521.key", "-pubout", "-out", "p521.pub"])
        XCTAssertEqual(refusal { try PublicKey(pem: self.bytes("p521.pub")) }, "EC curve secp521r1 is not supported (P-256 or P-384)")
        try run(["genpkey", "-algorithm", "ED25519", "-out", "ed.key"])
        try run(["pkey", "-in", "ed.key", "-pubout", "-out", "ed.pub"])
        XCTAssertEqual(
            refusal { try PublicKey(pem: self.bytes("ed.pub")) }, "a key of type ED25519 is not supported (RSA or EC P-256/P-384)")
        XCTAssertEqual(
            refusal { try PublicKey(pem: self.bytes("ed.key")) },
            "this is a private key; give its public key (openssl pkey -in KEY -pubout)")
        let broken = Array("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".utf8)
        XCTAssertTrue(refusal { try PublicKey(pem: broken) }?.hasPrefix("not a valid PEM public key (") == true)
        XCTAssertEqual(
            refusal { try PublicKey(pem: Array("a shared secret".utf8)) },
            "expected a PEM public key (BEGIN PUBLIC KEY) or certificate (BEGIN CERTIFICATE)")
    }

    func testParametersThatAreRefused() {
        let size = EllipticCurve.p256.coordinateByteCount
        // (1, 2) is not on P-256.
        let offCurve = refusal {
            try PublicKey(curve: .p256, x: [UInt8](repeating: 0, count: size - 1) + [1], y: [UInt8](repeating: 0, count: size - 1) + [2])
        }
        XCTAssertNotNil(offCurve)
        XCTAssertEqual(
            refusal { try PublicKey(curve: .p384, x: [1], y: [2]) }, "a P-384 key's x and y must be 48 bytes each (they are 1 and 1)")
        // 2^2048 - 1 is divisible by 3: not an RSA modulus.
        XCTAssertTrue(
            refusal { try PublicKey(rsaModulus: [UInt8](repeating: 0xFF, count: 256), exponent: [0x01, 0x00, 0x01]) }?.hasPrefix(
                "the key is not valid") == true)
        XCTAssertEqual(
            refusal { try PublicKey(rsaModulus: [UInt8](repeating: 0xC3, count: 128), exponent: [0x01, 0x00, 0x01]) },
            "an RSA key of 1024 bits is too short: at least 2048 are needed")
        XCTAssertEqual(refusal { try PublicKey(rsaModulus: [], exponent: [3]) }, "an RSA key needs both n and e")
    }
}
