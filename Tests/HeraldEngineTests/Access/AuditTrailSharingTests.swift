@testable import HeraldEngine
import Foundation
import HeraldAccess
import HeraldTestSupport
import Testing

/// A trail that shares with a mirror hands it every event, once the event is in `audit.jsonl`.
@Suite struct AuditTrailSharingTests {
    final class RecordingMirror: AuditMirror, @unchecked Sendable {
        // @unchecked Sendable: `handed` is only touched while `lock` is held.
        private let lock = NSLock()
        private var handed: [(event: AuditEvent, lineWasWritten: Bool)] = []
        let file: URL

        init(file: URL) { self.file = file }

        var events: [(event: AuditEvent, lineWasWritten: Bool)] { lock.withLock { handed } }

        func appendAudit(_ event: AuditEvent) {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            let written = text.contains(JSONWriter.string(event.json) + "\n")
            lock.withLock { handed.append((event, written)) }
        }

        func auditPage(limit: Int, before: AuditStreamID?, reply: @escaping @Sendable (Result<SharedAuditPage, EngineError>) -> Void) {
            reply(.success(SharedAuditPage()))
        }
    }

    @Test func everyEventGoesToTheMirrorAfterTheLocalFile() {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let trail = AuditTrail(directory: folder.url)
        trail.open()
        let ann = Principal(name: "ann", role: .operator, source: .key(name: "ann"))
        trail.append(.start(by: ann, job: "j-0", kind: "search", address: nil, at: 1))
        // Written before the trail shares: not handed over.
        trail.flush()
        #expect(trail.sharedWith == nil)
        let mirror = RecordingMirror(file: trail.fileURL)
        trail.share(with: mirror)
        #expect(trail.sharedWith === mirror)
        for index in 1...3 { trail.append(.start(by: ann, job: "j-\(index)", kind: "search", address: nil, at: Int64(index))) }
        trail.flush()
        #expect(mirror.events.map(\.event.job) == ["j-1", "j-2", "j-3"])
        #expect(mirror.events.allSatisfy { $0.lineWasWritten })
    }
}
