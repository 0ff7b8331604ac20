import HeraldCrypto
import XCTest

/// SHA-256 against FIPS 180-2's examples (appendix B) and the empty message, an independent oracle;
/// and the CSPRNG's bytes.
final class SHA256Tests: XCTestCase {
    func testDigestsMatchTheStandardsExamples() {
        XCTAssertEqual(SHA256.hexDigest(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hexDigest([]), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(
            SHA256.hexDigest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.digest(Array("abc".utf8)).count, 32)
        XCTAssertEqual(SHA256.digest(Array("abc".utf8)).first, 0xba)
    }

    func testSecureRandomGivesTheCountAskedForAndNewBytesEachTime() {
        XCTAssertEqual(SecureRandom.bytes(0), [])
        let first = SecureRandom.bytes(32)
        let second = SecureRandom.bytes(32)
        XCTAssertEqual(first.count, 32)
        // Two equal 256-bit draws from a working CSPRNG do not happen; from a broken one (zeros, a fixed
        // seed) they do.
        XCTAssertNotEqual(first, second)
        XCTAssertNotEqual(first, [UInt8](repeating: 0, count: 32))
    }
}
