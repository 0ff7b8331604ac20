@testable import HeraldEngine
import Foundation
import HeraldAccess
import HeraldTestSupport
import Testing

@Suite struct AuditTrailTests {
    private let ann = Principal(name: "ann", role: .operator, source: .key(name: "ann"))

    private func event(_ index: Int) -> AuditEvent {
        .start(by: ann, job: "j-\(index)", kind: "search", address: nil, at: 1_000 + Int64(index))
    }

    @Test func eventsAreReadNewestFirstPageByPage() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let trail = AuditTrail(directory: folder.url)
        #expect(trail.open().isEmpty)
        for index in 0..<25 { trail.append(event(index)) }
        trail.flush()
        var jobs: [String] = []
        var before: AuditCursor?
        var pages = 0
        repeat {
            let page = trail.page(limit: 10, before: before)
            jobs += page.entries.compactMap(\.event.job)
            before = page.next
            pages += 1
        } while before != nil && pages < 10
        #expect(pages == 3)
        #expect(jobs == (0..<25).reversed().map { "j-\($0)" })
        // The file is one JSON object per line, readable by anyone's JSON parser.
        let lines = try String(contentsOf: trail.fileURL, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 25)
        let first = try #require(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: String])
        #expect(first["event"] == "start" && first["job"] == "j-0" && first["actor"] == "ann")
        #expect(
            trail.page(limit: 10).json["next"]?.stringValue
                == AuditCursor(text: "1.\(lines.prefix(15).reduce(0) { $0 + $1.utf8.count + 1 })")?.text)
    }

    @Test func aTornLastLineIsSkippedOnReadAndCutOnOpen() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.url.appendingPathComponent("audit.jsonl")
        var text = [event(1), event(2)].map { JSONWriter.string($0.json) + "\n" }.joined()
        text += "this line is damaged\n"
        let whole = text.utf8.count
        text += String(JSONWriter.string(event(3).json).prefix(30))  // a crash in the middle of an append
        try Data(text.utf8).write(to: url)

        // A reader of the file as the crash left it skips the torn and the damaged line.
        let trail = AuditTrail(directory: folder.url)
        let problems = trail.open()
        #expect(problems.count == 1 && problems[0].contains("torn last line (30 bytes)"))
        #expect(try Data(contentsOf: url).count == whole)
        #expect(trail.page(limit: 10).entries.map(\.event.job) == ["j-2", "j-1"])
        trail.append(event(4))
        trail.flush()
        #expect(trail.page(limit: 10).entries.map(\.event.job) == ["j-4", "j-2", "j-1"])
    }

    @Test func segmentsRotateAndTheOldestAreDeletedCursorsStayGood() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // 10 events per segment, at least 20 kept: two closed segments beside the current one.
        let trail = AuditTrail(directory: folder.url, limits: HistoryLimits(archivedJobs: 20, maxSegmentJobs: 10, segmentBytes: 1 << 20))
        trail.open()
        for index in 0..<15 { trail.append(event(index)) }
        trail.flush()
        let firstPage = trail.page(limit: 3)
        #expect(firstPage.entries.map(\.event.job) == ["j-14", "j-13", "j-12"])
        for index in 15..<45 { trail.append(event(index)) }
        trail.flush()
        #expect(folder.names(in: folder.url.appendingPathComponent("audit")) == ["audit-00000003.jsonl", "audit-00000004.jsonl"])
        // The old page's cursor pointed into segment 2, now deleted: nothing older is left there.
        #expect(trail.page(limit: 5, before: firstPage.next).entries.isEmpty)
        var all: [String] = []
        var before: AuditCursor?
        repeat {
            let page = trail.page(limit: 7, before: before)
            all += page.entries.compactMap(\.event.job)
            before = page.next
        } while before != nil
        #expect(all == (20..<45).reversed().map { "j-\($0)" })
        // A new trail on the same folder goes on numbering after the newest closed segment.
        let reopened = AuditTrail(directory: folder.url, limits: trail.limits)
        reopened.open()
        #expect(reopened.page(limit: 1).entries.first?.cursor.segment == 5)
    }

    @Test func theAsynchronousPageAnswersOffTheCallersThread() async throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let trail = AuditTrail(directory: folder.url)
        trail.open()
        trail.append(event(1))
        let page = await withCheckedContinuation { continuation in trail.page(limit: 5) { continuation.resume(returning: $0) } }
        #expect(page.entries.map(\.event.job) == ["j-1"])
        #expect(AuditCursor(text: page.entries[0].cursor.text) == page.entries[0].cursor)
        #expect(AuditCursor(text: "1.") == nil && AuditCursor(text: "x.1") == nil && AuditCursor(text: "1.2.3") == nil)
    }
}
