import Foundation
import HeraldAccess
import HeraldTestSupport
import XCTest

/// `JWTKeyring(keyFiles:jwksFiles:audience:issuer:)`: every file it cannot use is an error that names
/// the flag, the file and the problem (good keys: JWTOracleTests).
final class JWTKeyringFileTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUp() { folder = makeTemporaryDirectory() }

    private func file(_ name: String, _ text: String) throws -> String {
        let url = folder.url.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    private func error(keyFiles: [String] = [], jwksFiles: [String] = [], audience: String? = nil) -> String? {
        do {
            _ = try JWTKeyring(keyFiles: keyFiles, jwksFiles: jwksFiles, audience: audience)
            return nil
        } catch {
            return error.description
        }
    }

    func testKeyFilesThatCannotBeUsed() throws {
        let missing = folder.url.appendingPathComponent("missing").path
        XCTAssertTrue(error(keyFiles: [missing])?.hasPrefix("--jwt-key \(missing): cannot be read (") == true)
        let empty = try file("empty", "")
        XCTAssertEqual(error(keyFiles: [empty]), "--jwt-key \(empty): the file is empty")
        let short = try file("short", "too short\n")
        XCTAssertEqual(
            error(keyFiles: [short]),
            "--jwt-key \(short): an HS secret must be at least 32 bytes (this one has 9); make one with: openssl rand -base64 48")
        let privateKey = try file("private.pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        XCTAssertEqual(
            error(keyFiles: [privateKey]),
            "--jwt-key \(privateKey): this is a private key; give its public key (openssl pkey -in KEY -pubout)")
        // A PEM file that does not parse is an error, never taken for a secret.
        let broken = try file("broken.pem", "\n-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        XCTAssertTrue(error(keyFiles: [broken])?.hasPrefix("--jwt-key \(broken): not a valid PEM public key (") == true)
        XCTAssertEqual(error(), "no JWT key: give --jwt-key FILE or --jwks FILE")
        let secret = try file("secret", String(repeating: "s", count: 32) + "\n")
        XCTAssertNil(error(keyFiles: [secret]))
        XCTAssertEqual(error(keyFiles: [secret], audience: ""), "--jwt-audience is empty")
    }

    func testJWKSFilesThatCannotBeUsed() throws {
        func jwksError(_ text: String) throws -> String? {
            let path = try file("jwks.json", text)
            guard let message = error(jwksFiles: [path]) else { return nil }
            XCTAssertTrue(message.hasPrefix("--jwks \(path): "), message)
            return String(message.dropFirst("--jwks \(path): ".count))
        }
        XCTAssertEqual(try jwksError("[]"), "not a JSON object")
        XCTAssertEqual(try jwksError("{\"keys\": {}}"), "has no \"keys\" array")
        XCTAssertEqual(try jwksError("{\"keys\": [1]}"), "key 1 is not a JSON object")
        XCTAssertEqual(try jwksError("{\"keys\": [{\"kid\": \"a\"}]}"), "key 1 (kid \"a\"): has no kty")
        XCTAssertEqual(
            try jwksError("{\"keys\": [{\"kty\": \"OKP\", \"crv\": \"Ed25519\", \"x\": \"AA\"}]}"),
            "key 1: kty \"OKP\" is not supported (RSA, EC or oct)")
        XCTAssertEqual(
            try jwksError("{\"keys\": [{\"kty\": \"EC\", \"crv\": \"P-521\", \"x\": \"AA\", \"y\": \"AA\"}]}"),
            "key 1: crv must be P-256 or P-384")
        XCTAssertEqual(
            try jwksError("{\"keys\": [{\"kty\": \"RSA\", \"n\": \"AQAB\", \"e\": \"AQAB\", \"d\": \"AQAB\"}]}"),
            "key 1: holds a private key's parameter d: publish only the public key")
        XCTAssertEqual(try jwksError("{\"keys\": [{\"kty\": \"RSA\", \"n\": \"AQAB\"}]}"), "key 1: has no e")
        XCTAssertEqual(
            try jwksError("{\"keys\": [{\"kty\": \"RSA\", \"n\": \"AQ==\", \"e\": \"AQAB\"}]}"),
            "key 1: n is not base64url (without padding)")
        XCTAssertEqual(
            try jwksError("{\"keys\": [{\"kty\": \"oct\", \"k\": \"c2VjcmV0\"}]}"),
            "key 1: an HS secret must be at least 32 bytes (k has 6)")
        let secret = String(repeating: "A", count: 43)  // 32 zero bytes
        XCTAssertEqual(
            try jwksError("{\"keys\": [{\"kty\": \"oct\", \"alg\": \"RS256\", \"k\": \"\(secret)\"}]}"),
            "key 1: alg RS256 does not fit an HS secret")
        XCTAssertEqual(
            try jwksError("{\"keys\": [{\"kty\": \"oct\", \"alg\": \"none\", \"k\": \"\(secret)\"}]}"),
            "key 1: alg \"none\" is not supported")
        XCTAssertEqual(try jwksError("{\"keys\": [{\"kty\": \"oct\", \"use\": \"enc\", \"k\": \"\(secret)\"}]}"), "holds no signature keys")
        XCTAssertNil(try jwksError("{\"keys\": [{\"kty\": \"oct\", \"use\": \"sig\", \"alg\": \"HS384\", \"k\": \"\(secret)\"}]}"))
    }

    /// A JWK's `alg` limits its key to that one algorithm.
    func testAJWKsAlgorithmIsTheOnlyOneItAllows() throws {
        let secret = String(repeating: "A", count: 43)
        let path = try file("jwks.json", "{\"keys\": [{\"kty\": \"oct\", \"alg\": \"HS384\", \"kid\": \"s\", \"k\": \"\(secret)\"}]}")
        let ring = try JWTKeyring(keyFiles: [], jwksFiles: [path])
        XCTAssertEqual(ring.keys.count, 1)
        XCTAssertEqual(ring.keys.first?.id, "s")
        XCTAssertEqual(ring.keys.first?.allows(.hs384), true)
        XCTAssertEqual(ring.keys.first?.allows(.hs256), false)
    }
}
