import XCTest

@testable import HeraldEngine

final class HeapFiguresTests: XCTestCase {
    /// A block held is in use; freed, it is not. 64 MiB, far above anything the rest of the test
    /// process allocates or frees meanwhile on other threads (XCTest runs one test at a time).
    func testABlockHeldCountsAsInUseUntilItIsFreed() {
        let size = 64 << 20
        let before = HeapFigures.read()
        let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        block.initializeMemory(as: UInt8.self, repeating: 1, count: size)
        let held = HeapFigures.read()
        block.deallocate()
        let after = HeapFigures.read()
        XCTAssertGreaterThanOrEqual(held.inUseBytes - before.inUseBytes, size / 2, "held \(held), before \(before)")
        XCTAssertGreaterThanOrEqual(held.inUseBytes - after.inUseBytes, size / 2, "held \(held), after \(after)")
        XCTAssertGreaterThanOrEqual(after.freeBytes, 0)
    }
}
