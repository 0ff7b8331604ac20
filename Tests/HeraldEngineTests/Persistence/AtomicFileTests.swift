import Foundation
import HeraldEngine
import HeraldTestSupport
import XCTest

final class AtomicFileTests: XCTestCase {
    private struct Stop: Error {}

    func testWriteCreatesAndReplaces() throws {
        let directory = makeTemporaryDirectory()
        let target = directory.url.appendingPathComponent("nested/deeper/file.txt")
        try AtomicFile.write(Data("first version, rather long".utf8), to: target)
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "first version, rather long")
        try AtomicFile.write(Data("second".utf8), to: target)
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "second", "replaced, not overwritten in place")
        XCTAssertEqual(directory.names(in: target.deletingLastPathComponent()), ["file.txt"], "no temporary file left")
    }

    func testLargeContent() throws {
        let directory = makeTemporaryDirectory()
        let target = directory.url.appendingPathComponent("big.bin")
        var data = Data(repeating: 0xAB, count: 3 << 20)
        for offset in stride(from: 0, to: data.count, by: 4099) { data[offset] = UInt8(truncatingIfNeeded: offset) }
        try AtomicFile.write(data, to: target)
        XCTAssertEqual(try Data(contentsOf: target), data)
    }

    func testFillWritesThroughTheDescriptor() throws {
        let directory = makeTemporaryDirectory()
        let target = directory.url.appendingPathComponent("filled.txt")
        try AtomicFile.write(to: target) { descriptor in
            for part in ["a", "b", "c"] {
                try Array(part.utf8).withUnsafeBytes { try AtomicFile.writeAll(descriptor, $0) }
            }
        }
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "abc")
    }

    func testThrowingFillLeavesTargetUnchangedAndNoTemporaryFile() throws {
        let directory = makeTemporaryDirectory()
        let target = directory.url.appendingPathComponent("keep.txt")
        try AtomicFile.write(Data("original".utf8), to: target)
        XCTAssertThrowsError(
            try AtomicFile.write(to: target) { descriptor in
                try Array("half of the new".utf8).withUnsafeBytes { try AtomicFile.writeAll(descriptor, $0) }
                throw Stop()
            }
        ) { error in XCTAssertTrue(error is Stop, "the fill's own error comes back: \(error)") }
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "original")
        XCTAssertEqual(directory.names(), ["keep.txt"], "the temporary file was removed")
    }

    func testThrowingFillWithoutATargetCreatesNothing() {
        let directory = makeTemporaryDirectory()
        let target = directory.url.appendingPathComponent("never.txt")
        XCTAssertThrowsError(try AtomicFile.write(to: target) { _ in throw Stop() })
        XCTAssertEqual(directory.names(), [])
    }

    func testUnwritableFolderIsAnError() throws {
        let directory = makeTemporaryDirectory()
        let blocker = directory.url.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: blocker)
        XCTAssertThrowsError(try AtomicFile.write(Data("y".utf8), to: blocker.appendingPathComponent("inside.txt")))
        XCTAssertEqual(try String(contentsOf: blocker, encoding: .utf8), "x")
    }
}
