import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// Files opened relative to their folder: the right file in each folder, a folder swapped for a
/// symlink after the listing is not followed, and files listed without a folder open by path.
final class SearchFolderCacheTests: XCTestCase {
    private func contents(_ descriptor: Int32) -> String? {
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let got = read(descriptor, &bytes, bytes.count)
        return got < 0 ? nil : String(decoding: bytes.prefix(got), as: UTF8.self)
    }

    func testOpensEachFileInItsFolderAndFollowsNoSwappedFolder() throws {
        let directory = makeTemporaryDirectory()
        let root = directory.url.path
        for folder in ["a", "b", "c"] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true)
            for name in ["x.txt", "y.txt"] {
                try Data("\(folder)/\(name)".utf8).write(to: URL(fileURLWithPath: "\(root)/\(folder)/\(name)"))
            }
        }
        try FileManager.default.createDirectory(atPath: "\(root)/elsewhere", withIntermediateDirectories: true)
        try Data("outside".utf8).write(to: URL(fileURLWithPath: "\(root)/elsewhere/x.txt"))
        let context = makeStandaloneContext(.search, searchRoot: directory.url)
        let files = try SearchTree.list(SearchPath(root: root, folder: root), excluding: nil, context: context)
        XCTAssertEqual(Set(files.map(\.folder)).count, 4)
        let cache = SearchFolderCache()
        for file in files where !file.relative.hasPrefix("elsewhere") {
            XCTAssertEqual(contents(cache.open(file)), file.relative)
        }
        // Back to "a" after the others, then "c" swapped for a symlink to "elsewhere".
        let a = try XCTUnwrap(files.first { $0.relative == "a/y.txt" })
        XCTAssertEqual(contents(cache.open(a)), "a/y.txt")
        try FileManager.default.removeItem(atPath: "\(root)/c")
        try FileManager.default.createSymbolicLink(atPath: "\(root)/c", withDestinationPath: "\(root)/elsewhere")
        let c = try XCTUnwrap(files.first { $0.relative == "c/x.txt" })
        XCTAssertEqual(cache.open(c), -1)
        XCTAssertEqual(contents(SearchFolderCache().open(SearchFile(path: "\(root)/b/x.txt", relative: "b/x.txt", size: 7))), "b/x.txt")
    }
}
