import Foundation
import HeraldCrypto
import XCTest

/// HMAC-SHA256 against the test vectors of RFC 4231 (section 4), an independent oracle.
final class HMACTests: XCTestCase {
    private static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    private static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    struct Vector: Sendable {
        let name: String
        let key: [UInt8]
        let data: [UInt8]
        let mac: String
    }

    static let vectors: [Vector] = [
        Vector(
            name: "4.2", key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
            mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Vector(
            name: "4.3", key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
            mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Vector(
            name: "4.4", key: [UInt8](repeating: 0xaa, count: 20), data: [UInt8](repeating: 0xdd, count: 50),
            mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Vector(
            name: "4.5", key: bytes("0102030405060708090a0b0c0d0e0f10111213141516171819"), data: [UInt8](repeating: 0xcd, count: 50),
            mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Vector(
            name: "4.6 (truncated to 128 bits)", key: [UInt8](repeating: 0x0c, count: 20), data: Array("Test With Truncation".utf8),
            mac: "a3b6167473100ee06e0c796c2955552b"),
        Vector(
            name: "4.7 (a key longer than the block)", key: [UInt8](repeating: 0xaa, count: 131),
            data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Vector(
            name: "4.8 (a key and data longer than the block)", key: [UInt8](repeating: 0xaa, count: 131),
            data: Array(
                "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
                    .utf8),
            mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    func testRFC4231Vectors() {
        for vector in Self.vectors {
            let mac = Self.hex(HMAC.sha256(key: vector.key, message: vector.data))
            // 4.6 gives only the first 128 bits of the MAC.
            XCTAssertTrue(mac.hasPrefix(vector.mac), "RFC 4231 \(vector.name): \(mac)")
            XCTAssertEqual(mac.count, 64, vector.name)
        }
    }

    /// RFC 4231 4.2 with SHA-384 and SHA-512, and the verification that compares in constant time.
    func testSHA384AndSHA512() {
        let key = [UInt8](repeating: 0x0b, count: 20)
        let data = Array("Hi There".utf8)
        XCTAssertEqual(
            Self.hex(HMAC.sha384(key: key, message: data)),
            "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6")
        XCTAssertEqual(
            Self.hex(HMAC.sha512(key: key, message: data)),
            "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854"
        )
        let mac = HMAC.authenticate(.sha384, key: key, message: data)
        XCTAssertEqual(mac.count, DigestAlgorithm.sha384.byteCount)
        XCTAssertTrue(HMAC.verify(.sha384, key: key, message: data, mac: mac))
        XCTAssertFalse(HMAC.verify(.sha512, key: key, message: data, mac: mac))
        XCTAssertFalse(HMAC.verify(.sha384, key: key, message: data + [0], mac: mac))
    }

    func testEmptyKeyAndMessage() {
        // HMAC-SHA256("", ""), as Python's hmac module computes it.
        XCTAssertEqual(Self.hex(HMAC.sha256(key: [], message: [])), "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    func testConstantTimeEquality() {
        let mac = HMAC.sha256(key: [1, 2, 3], message: [4])
        XCTAssertTrue(HMAC.constantTimeEquals(mac, mac))
        var other = mac
        other[31] ^= 1
        XCTAssertFalse(HMAC.constantTimeEquals(mac, other))
        XCTAssertFalse(HMAC.constantTimeEquals(mac, Array(mac.prefix(16))))
    }
}
