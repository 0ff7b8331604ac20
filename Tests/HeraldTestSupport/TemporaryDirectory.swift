import Foundation
import XCTest

/// A fresh folder under the system temporary directory, removed when the test ends.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("herald-tests-\(UUID().uuidString)", isDirectory: true)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func remove() { try? FileManager.default.removeItem(at: url) }

    /// The names in `folder` (default: the root), sorted.
    public func names(in folder: URL? = nil) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: (folder ?? url).path)) ?? []).sorted()
    }
}

extension XCTestCase {
    /// A temporary directory that is deleted after the test.
    public func makeTemporaryDirectory() -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        addTeardownBlock { directory.remove() }
        return directory
    }
}
