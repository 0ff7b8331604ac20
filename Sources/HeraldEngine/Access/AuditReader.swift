import HeraldAccess
import Foundation

/// The audit's segments as they were when a page was asked for: reads them newest first, off the
/// trail's `io` queue. The current file is read only up to `currentBytes` (its whole lines then), and
/// a line that is not an event (torn by a crash, damaged by hand) is skipped. Thread: any.
struct AuditReader: Sendable {
    let fileURL: URL
    let folder: URL
    let current: Int
    let currentBytes: Int
    let closed: [Int]

    /// The most events one page holds (a `limit` is clamped to 1…this).
    static let maxLimit = 1_000

    func page(limit: Int, before: AuditCursor?) -> AuditPage {
        var page = AuditPage()
        let wanted = max(1, min(limit, Self.maxLimit))
        let segments = [current] + closed.sorted(by: >)
        for segment in segments {
            if let before, segment > before.segment { continue }
            let bytes: [UInt8]
            if segment == current {
                bytes = Array((FileManager.default.contents(atPath: fileURL.path).map { [UInt8]($0) } ?? []).prefix(currentBytes))
            } else {
                bytes =
                    FileManager.default.contents(atPath: folder.appendingPathComponent(AuditTrail.segmentName(segment)).path).map {
                        [UInt8]($0)
                    } ?? []
            }
            for (offset, line) in Self.lines(bytes).reversed() {
                let cursor = AuditCursor(segment: segment, offset: offset)
                if let before, cursor >= before { continue }
                guard let value = try? JSONParser.parse(Array(line), maxDepth: 2), let event = AuditEvent(json: value) else { continue }
                if page.entries.count == wanted {
                    page.next = page.entries.last?.cursor
                    return page
                }
                page.entries.append(AuditPage.Entry(cursor: cursor, event: event))
            }
        }
        return page
    }

    /// The whole lines (ended by `\n`) and their offsets; a last line without one is left out.
    static func lines(_ bytes: [UInt8]) -> [(offset: Int, line: ArraySlice<UInt8>)] {
        var result: [(Int, ArraySlice<UInt8>)] = []
        var start = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            if index > start { result.append((start, bytes[start..<index])) }
            start = index + 1
        }
        return result
    }
}
