import Foundation
import HeraldCrypto
import XCTest

@testable import HeraldAccess

/// The compact form taken apart strictly, before any key is involved, and the refusals that need no
/// oracle: each names what is wrong.
final class JSONWebTokenTests: XCTestCase {
    /// {"alg":"HS256"}, {} and "sig", base64url-encoded (by Python's base64.urlsafe_b64encode).
    private static let hs256Header = "eyJhbGciOiJIUzI1NiJ9"
    private static let emptyPayload = "e30"
    private static let signature = "c2ln"

    private func refusal(_ token: String) -> String? {
        do {
            _ = try JSONWebToken(compact: token)
            return nil
        } catch {
            XCTAssertEqual(error.kind, .unauthorized)
            return error.message
        }
    }

    func testBase64URLIsStrict() {
        XCTAssertEqual(Base64URL.decode(Array("".utf8)), [])
        XCTAssertEqual(Base64URL.decode(Array("QQ".utf8)), [0x41])
        XCTAssertEqual(Base64URL.decode(Array("-w".utf8)), [0xFB])
        XCTAssertEqual(Base64URL.decode(Array("c2ln".utf8)), Array("sig".utf8))
        XCTAssertNil(Base64URL.decode(Array("QR".utf8)), "unused bits must be zero")
        XCTAssertNil(Base64URL.decode(Array("Q".utf8)), "one character is never a byte")
        XCTAssertNil(Base64URL.decode(Array("QQ==".utf8)), "no padding")
        XCTAssertNil(Base64URL.decode(Array("+w".utf8)), "not the URL-safe alphabet")
        XCTAssertNil(Base64URL.decode(Array("Q Q".utf8)), "no whitespace")
    }

    func testTheHeaderIsRead() throws {
        // {"alg":"RS256","kid":"k1","typ":"JWT"}
        let token = try JSONWebToken(compact: "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiSldUIn0.\(Self.emptyPayload).\(Self.signature)")
        XCTAssertEqual(token.algorithm, "RS256")
        XCTAssertEqual(token.keyID, "k1")
        XCTAssertEqual(token.type, "JWT")
        XCTAssertEqual(token.signature, Array("sig".utf8))
        XCTAssertEqual(token.signingInput, Array("eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiSldUIn0.e30".utf8))
    }

    func testMalformedTokensAreRefused() {
        let notCompact = "token is not a compact JWS (three base64url parts separated by dots)"
        XCTAssertEqual(refusal("\(Self.hs256Header).\(Self.emptyPayload)"), notCompact)
        XCTAssertEqual(refusal("\(Self.hs256Header).\(Self.emptyPayload).\(Self.signature).x"), notCompact)
        XCTAssertEqual(refusal(""), notCompact)
        let notBase64 = "token is not base64url (without padding)"
        XCTAssertEqual(refusal("\(Self.hs256Header).\(Self.emptyPayload)=.\(Self.signature)"), notBase64)
        XCTAssertEqual(refusal("\(Self.hs256Header).\(Self.emptyPayload).c2l+"), notBase64)
        // "not json", [1]
        XCTAssertEqual(refusal("bm90IGpzb24.\(Self.emptyPayload).\(Self.signature)"), "token header is not a JSON object")
        XCTAssertEqual(refusal("WzFd.\(Self.emptyPayload).\(Self.signature)"), "token header is not a JSON object")
        // {"typ":"JWT"}, {"alg":1}
        XCTAssertEqual(refusal("eyJ0eXAiOiJKV1QifQ.\(Self.emptyPayload).\(Self.signature)"), "token header has no alg")
        XCTAssertEqual(refusal("eyJhbGciOjF9.\(Self.emptyPayload).\(Self.signature)"), "token header has no alg")
        // {"alg":"HS256","kid":1}
        XCTAssertEqual(
            refusal("eyJhbGciOiJIUzI1NiIsImtpZCI6MX0.\(Self.emptyPayload).\(Self.signature)"), "token header's kid is not a string")
        // {"alg":"HS256","crit":["exp"]}
        XCTAssertEqual(
            refusal("eyJhbGciOiJIUzI1NiIsImNyaXQiOlsiZXhwIl19.\(Self.emptyPayload).\(Self.signature)"),
            "token header has crit extensions, which are not supported")
    }

    func testTheSizeLimitComesFirst() {
        let large = String(repeating: "a", count: JSONWebToken.maximumBytes + 1)
        XCTAssertEqual(refusal(large), "token larger than 8 KiB")
        // At the limit, the token is parsed (and refused for what it is).
        XCTAssertEqual(
            refusal(String(repeating: "a", count: JSONWebToken.maximumBytes)),
            "token is not a compact JWS (three base64url parts separated by dots)")
    }

    /// Through a keyring with an HS secret: the algorithm names it refuses, and a payload that is not
    /// a JSON object once the signature verifies.
    func testAlgorithmsAndPayloadsTheKeyringRefuses() {
        let secret = [UInt8](repeating: 7, count: 32)
        let ring = JWTKeyring(keys: [JWTKey(.secret(secret))])
        func refusal(_ token: String) -> String? {
            do {
                _ = try ring.principal(for: token, nowMilliseconds: 0)
                return nil
            } catch { return error.message }
        }
        // {"alg":"none"}, {"alg":"HS999"}
        XCTAssertEqual(refusal("eyJhbGciOiJub25lIn0.\(Self.emptyPayload)."), "algorithm none is never accepted")
        XCTAssertEqual(refusal("eyJhbGciOiJIUzk5OSJ9.\(Self.emptyPayload).\(Self.signature)"), "algorithm \"HS999\" is not supported")
        XCTAssertEqual(refusal("\(Self.hs256Header).\(Self.emptyPayload).\(Self.signature)"), "signature does not verify")
        // [] as the payload, signed with the secret.
        let input = "\(Self.hs256Header).W10"
        let mac = HMAC.sha256(key: secret, message: Array(input.utf8))
        let macText = String(decoding: Data(mac).base64EncodedData(), as: UTF8.self).replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        XCTAssertEqual(refusal("\(input).\(macText)"), "token payload is not a JSON object")
        XCTAssertThrowsError(try JWTKeyring(keys: []).principal(for: "\(input).\(macText)", nowMilliseconds: 0)) { error in
            XCTAssertEqual((error as? AccessRefusal)?.message, "no JWT keys are configured")
        }
    }
}
