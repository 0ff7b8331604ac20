import Glibc
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

final class HeapFiguresTests: XCTestCase {
    /// ThreadSanitizer brings an allocator of its own, whose `mallinfo2` answers zeros.
    static let underThreadSanitizer = dlsym(nil, "__tsan_init") != nil

    /// A block held is in use; freed, it is not. 64 MiB, far above anything the rest of the test
    /// process allocates or frees meanwhile on other threads (XCTest runs one test at a time).
    func testABlockHeldCountsAsInUseUntilItIsFreed() throws {
        guard !Self.underThreadSanitizer else {
            XCTAssertNil(HeapFigures.read(), "a sanitizer's allocator reports no figures")
            throw XCTSkip("glibc's figures, and ThreadSanitizer replaces malloc")
        }
        let size = 64 << 20
        let before = try XCTUnwrap(HeapFigures.read())
        let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        block.initializeMemory(as: UInt8.self, repeating: 1, count: size)
        let held = try XCTUnwrap(HeapFigures.read())
        block.deallocate()
        let after = try XCTUnwrap(HeapFigures.read())
        XCTAssertGreaterThanOrEqual(held.inUseBytes - before.inUseBytes, size / 2, "held \(held), before \(before)")
        XCTAssertGreaterThanOrEqual(held.inUseBytes - after.inUseBytes, size / 2, "held \(held), after \(after)")
    }
}
