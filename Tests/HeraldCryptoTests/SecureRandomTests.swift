import HeraldCrypto
import XCTest

final class SecureRandomTests: XCTestCase {
    func testBytesHaveTheLengthAskedForAndDoNotRepeat() {
        XCTAssertEqual(SecureRandom.bytes(0), [])
        XCTAssertEqual(SecureRandom.bytes(32).count, 32)
        // 1,000 draws of 16 bytes: a repeat (or an all-zero draw) would mean the generator is not random.
        let draws = (0..<1_000).map { _ in SecureRandom.bytes(16) }
        XCTAssertEqual(Set(draws).count, draws.count)
        XCTAssertFalse(draws.contains([UInt8](repeating: 0, count: 16)))
    }
}
