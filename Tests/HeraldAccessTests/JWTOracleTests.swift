import Foundation
import HeraldAccess
import HeraldTestSupport
import XCTest

/// Tokens minted by PyJWT (JWTFixture) through `JWTKeyring`: every valid one becomes the principal
/// its claims describe, every other one is refused with the message that names its problem.
final class JWTOracleTests: XCTestCase {
    private static let shared = Result { try JWTFixture.make() }

    override class func tearDown() {
        if case .success(let fixture) = shared { fixture.remove() }
        super.tearDown()
    }

    private static let audience = "herald"
    private static let issuer = "https://app.example"
    /// The `exp` mint_jwts.py gives a token unless the case says otherwise, in milliseconds.
    private static let defaultExpiry = (JWTFixture.nowSeconds + 600) * 1000

    private struct Keyrings {
        let rsa, rsaWithoutChecks, certificate, ec256, ec384, secret, jwks, every: JWTKeyring
    }

    private func keyrings(_ fixture: JWTFixture) throws -> Keyrings {
        func ring(_ keys: [String], jwks: [String] = [], checks: Bool = true) throws -> JWTKeyring {
            try JWTKeyring(
                keyFiles: keys.map(fixture.path), jwksFiles: jwks.map(fixture.path), audience: checks ? Self.audience : nil,
                issuer: checks ? Self.issuer : nil)
        }
        return Keyrings(
            rsa: try ring(["rsa.pub"]), rsaWithoutChecks: try ring(["rsa.pub"], checks: false), certificate: try ring(["rsa.crt"]),
            ec256: try ring(["ec256.pub"]), ec384: try ring(["ec384.pub"]), secret: try ring(["secret.txt"]),
            jwks: try ring([], jwks: ["jwks.json"]),
            every: try ring(["rsa.pub", "ec256.pub", "ec384.pub", "secret.txt"]))
    }

    private func assertAccepted(
        _ fixture: JWTFixture, _ name: String, by keyring: JWTKeyring, keyringName: String, subject: String = "alice",
        role: Role = .operator, kinds: Set<String>? = ["build", "deploy"], jobs: Set<String>? = nil,
        expiresAt: Int64 = defaultExpiry, now: Int64 = JWTFixture.nowMilliseconds, line: UInt = #line
    ) throws {
        let token = try fixture.token(name)
        do {
            let principal = try keyring.principal(for: token, nowMilliseconds: now)
            XCTAssertEqual(principal.name, subject, "\(name) by \(keyringName)", line: line)
            XCTAssertEqual(principal.role, role, "\(name) by \(keyringName)", line: line)
            XCTAssertEqual(principal.scope, AccessScope(kinds: kinds, jobs: jobs), "\(name) by \(keyringName)", line: line)
            XCTAssertEqual(principal.expiresAtMilliseconds, expiresAt, "\(name) by \(keyringName)", line: line)
            XCTAssertEqual(principal.source, .jwt(subject: subject), "\(name) by \(keyringName)", line: line)
        } catch {
            XCTFail("\(name) by \(keyringName): refused: \(error.message)", line: line)
        }
    }

    private func assertRefused(
        _ fixture: JWTFixture, _ name: String, by keyring: JWTKeyring, keyringName: String, _ message: String,
        now: Int64 = JWTFixture.nowMilliseconds, line: UInt = #line
    ) throws {
        let token = try fixture.token(name)
        do {
            let principal = try keyring.principal(for: token, nowMilliseconds: now)
            XCTFail("\(name) by \(keyringName): accepted as \(principal.name)", line: line)
        } catch {
            XCTAssertEqual(error.kind, .unauthorized, "\(name) by \(keyringName)", line: line)
            XCTAssertEqual(error.message, message, "\(name) by \(keyringName)", line: line)
            // The message never repeats the token, nor any of its parts.
            for part in token.split(separator: ".") where part.count > 8 {
                XCTAssertFalse(error.message.contains(part), "\(name): the message repeats the token", line: line)
            }
        }
    }

    func testEveryAlgorithmVerifiesWithItsKey() throws {
        let fixture = try Self.shared.get()
        let rings = try keyrings(fixture)
        for name in ["rs256", "rs384", "rs512", "ps256", "ps384", "ps512"] {
            try assertAccepted(fixture, name, by: rings.rsa, keyringName: "rsa.pub")
            try assertAccepted(fixture, name, by: rings.certificate, keyringName: "rsa.crt")
            try assertAccepted(fixture, name, by: rings.jwks, keyringName: "jwks.json (no kid: each RSA key is tried)")
            try assertAccepted(fixture, name, by: rings.every, keyringName: "every key")
        }
        for (name, ring) in [("es256", rings.ec256), ("es384", rings.ec384)] {
            try assertAccepted(fixture, name, by: ring, keyringName: "its EC key")
            try assertAccepted(fixture, name, by: rings.jwks, keyringName: "jwks.json")
            try assertAccepted(fixture, name, by: rings.every, keyringName: "every key")
        }
        for name in ["hs256", "hs384", "hs512"] {
            try assertAccepted(fixture, name, by: rings.secret, keyringName: "secret.txt")
            try assertAccepted(fixture, name, by: rings.every, keyringName: "every key")
        }
    }

    func testClaimsBecomeThePrincipal() throws {
        let fixture = try Self.shared.get()
        let rings = try keyrings(fixture)
        try assertAccepted(
            fixture, "jobs-default-role", by: rings.rsa, keyringName: "rsa.pub", subject: "ci-bot", role: .viewer, kinds: nil,
            jobs: ["7", "12"])
        try assertAccepted(fixture, "worker-role", by: rings.rsa, keyringName: "rsa.pub", role: .worker, kinds: [])
        try assertAccepted(fixture, "fractional-exp", by: rings.rsa, keyringName: "rsa.pub", expiresAt: Self.defaultExpiry + 500)
        try assertAccepted(fixture, "audience-list", by: rings.rsa, keyringName: "rsa.pub")
        try assertAccepted(
            fixture, "within-leeway", by: rings.rsa, keyringName: "rsa.pub", expiresAt: (JWTFixture.nowSeconds - 10) * 1000)
        // Audience and issuer are checked only when the keyring names them.
        try assertAccepted(fixture, "wrong-audience", by: rings.rsaWithoutChecks, keyringName: "rsa.pub without audience")
        try assertAccepted(fixture, "no-audience", by: rings.rsaWithoutChecks, keyringName: "rsa.pub without audience")
        try assertAccepted(fixture, "wrong-issuer", by: rings.rsaWithoutChecks, keyringName: "rsa.pub without issuer")
    }

    func testKeyIDsPickTheKey() throws {
        let fixture = try Self.shared.get()
        let rings = try keyrings(fixture)
        try assertAccepted(fixture, "typ-jwt-kid-rsa", by: rings.jwks, keyringName: "jwks.json")
        try assertAccepted(fixture, "kid-ec", by: rings.jwks, keyringName: "jwks.json")
        try assertAccepted(fixture, "no-kid-rsa2", by: rings.jwks, keyringName: "jwks.json", subject: "bob")
        // A --jwt-key file's key has no id: it verifies tokens whatever their kid.
        try assertAccepted(fixture, "typ-jwt-kid-rsa", by: rings.rsa, keyringName: "rsa.pub")
        try assertRefused(fixture, "unknown-kid", by: rings.jwks, keyringName: "jwks.json", "unknown key id (kid) \"nope\"")
        try assertRefused(fixture, "no-kid-rsa2", by: rings.rsa, keyringName: "rsa.pub", "signature does not verify")
    }

    func testTheKeyDecidesTheAlgorithm() throws {
        let fixture = try Self.shared.get()
        let rings = try keyrings(fixture)
        for name in ["alg-none"] {
            for (ringName, ring) in [("rsa.pub", rings.rsa), ("secret.txt", rings.secret), ("every key", rings.every)] {
                try assertRefused(fixture, name, by: ring, keyringName: ringName, "algorithm none is never accepted")
            }
        }
        // Algorithm confusion: HMAC-SHA256 keyed with the RSA key's public PEM.
        try assertRefused(
            fixture, "hs256-rsa-public-key-as-secret", by: rings.rsa, keyringName: "rsa.pub", "algorithm HS256 not allowed for an RSA key")
        try assertRefused(
            fixture, "hs256-rsa-public-key-as-secret", by: rings.certificate, keyringName: "rsa.crt",
            "algorithm HS256 not allowed for an RSA key")
        try assertRefused(
            fixture, "hs256-rsa-public-key-as-secret", by: rings.jwks, keyringName: "jwks.json",
            "algorithm HS256 not allowed for any of the configured keys")
        try assertRefused(fixture, "hs256", by: rings.rsa, keyringName: "rsa.pub", "algorithm HS256 not allowed for an RSA key")
        try assertRefused(fixture, "rs256", by: rings.secret, keyringName: "secret.txt", "algorithm RS256 not allowed for an HS secret")
        try assertRefused(fixture, "rs256", by: rings.ec256, keyringName: "ec256.pub", "algorithm RS256 not allowed for an EC P-256 key")
        try assertRefused(fixture, "es256", by: rings.rsa, keyringName: "rsa.pub", "algorithm ES256 not allowed for an RSA key")
        try assertRefused(fixture, "es256", by: rings.ec384, keyringName: "ec384.pub", "algorithm ES256 not allowed for an EC P-384 key")
        try assertRefused(fixture, "es384", by: rings.ec256, keyringName: "ec256.pub", "algorithm ES384 not allowed for an EC P-256 key")
    }

    func testForgedAndTamperedTokensDoNotVerify() throws {
        let fixture = try Self.shared.get()
        let rings = try keyrings(fixture)
        for (name, ring, ringName) in [
            ("tampered-payload", rings.rsa, "rsa.pub"), ("tampered-signature", rings.rsa, "rsa.pub"),
            ("rs256-other-key", rings.rsa, "rsa.pub"), ("es256-der-signature", rings.ec256, "ec256.pub"),
            ("hs256-wrong-secret", rings.secret, "secret.txt"), ("tampered-payload", rings.every, "every key"),
        ] {
            try assertRefused(fixture, name, by: ring, keyringName: ringName, "signature does not verify")
        }
        try assertRefused(fixture, "large", by: rings.rsa, keyringName: "rsa.pub", "token larger than 8 KiB")
    }

    func testClaimsThatAreRefused() throws {
        let fixture = try Self.shared.get()
        let ring = try keyrings(fixture).rsa
        for (name, message) in [
            ("expired", "token expired"),
            ("nbf-future", "token not valid yet (nbf)"),
            ("iat-future", "token issued in the future (iat)"),
            ("wrong-audience", "token's audience (aud) is not the one configured"),
            ("no-audience", "token has no aud (audience)"),
            ("wrong-issuer", "token's issuer (iss) is not the one configured"),
            ("missing-exp", "token has no exp (expiry)"),
            ("exp-not-number", "token's exp is not a number of seconds since 1970"),
            ("missing-sub", "token has no sub (subject)"),
            ("empty-sub", "token's sub is not a non-empty string"),
            ("unknown-role", "unknown role \"root\" (viewer, operator, admin or worker)"),
            ("kinds-not-strings", "token's kinds is not an array of strings"),
            ("jobs-not-ids", "token's jobs is not an array of job ids (strings or integers)"),
        ] {
            try assertRefused(fixture, name, by: ring, keyringName: "rsa.pub", message)
        }
    }

    /// The leeway, with the injected clock moved instead of minting more tokens: `rs256` expires 600 s
    /// after the fixture's now; `within-leeway` is not valid before now + 10 s (`nbf`).
    func testLeewayIsThirtySecondsEachWay() throws {
        let fixture = try Self.shared.get()
        let ring = try keyrings(fixture).rsa
        let expiry = Self.defaultExpiry
        try assertAccepted(fixture, "rs256", by: ring, keyringName: "rsa.pub", now: expiry + JWTKeyring.leewayMilliseconds - 1)
        try assertRefused(fixture, "rs256", by: ring, keyringName: "rsa.pub", "token expired", now: expiry + JWTKeyring.leewayMilliseconds)
        let notBefore = (JWTFixture.nowSeconds + 10) * 1000
        try assertAccepted(
            fixture, "within-leeway", by: ring, keyringName: "rsa.pub", expiresAt: (JWTFixture.nowSeconds - 10) * 1000,
            now: notBefore - JWTKeyring.leewayMilliseconds)
        try assertRefused(
            fixture, "within-leeway", by: ring, keyringName: "rsa.pub", "token not valid yet (nbf)",
            now: notBefore - JWTKeyring.leewayMilliseconds - 1)
    }

    /// Ten thousand verifications over every kind of key, each answer checked. Memory is not asserted
    /// here (tests never do); this loop is the one to watch for growth when libcrypto calls change.
    func testTenThousandVerifications() throws {
        let fixture = try Self.shared.get()
        let rings = try keyrings(fixture)
        let cases = [
            (try fixture.token("rs256"), rings.rsa), (try fixture.token("ps256"), rings.jwks), (try fixture.token("es256"), rings.ec256),
            (try fixture.token("hs256"), rings.secret), (try fixture.token("tampered-signature"), rings.rsa),
        ]
        var accepted = 0
        var refused = 0
        for index in 0..<10_000 {
            let (token, ring) = cases[index % cases.count]
            if (try? ring.principal(for: token, nowMilliseconds: JWTFixture.nowMilliseconds)) != nil { accepted += 1 } else { refused += 1 }
        }
        XCTAssertEqual(accepted, 8_000)
        XCTAssertEqual(refused, 2_000)
    }

    /// One keyring (its libcrypto keys) shared by threads that verify at the same time, as the server's
    /// threads will: every answer is still right (and ThreadSanitizer, in `make test-tsan`, sees no race).
    func testThreadsShareAKeyring() throws {
        let fixture = try Self.shared.get()
        let ring = try JWTKeyring(
            keyFiles: [fixture.path("rsa.pub"), fixture.path("ec256.pub"), fixture.path("secret.txt")], audience: Self.audience,
            issuer: Self.issuer)
        let tokens = [
            try fixture.token("rs256"), try fixture.token("es256"), try fixture.token("hs256"), try fixture.token("tampered-payload"),
        ]
        let results = Locked([Int](repeating: 0, count: 4))
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            var accepted = 0
            for index in 0..<200 {
                let token = tokens[(index + thread) % tokens.count]
                if let principal = try? ring.principal(for: token, nowMilliseconds: JWTFixture.nowMilliseconds), principal.name == "alice" {
                    accepted += 1
                }
            }
            results.withLock { $0[thread] = accepted }
        }
        XCTAssertEqual(results.value, [150, 150, 150, 150])
    }
}
