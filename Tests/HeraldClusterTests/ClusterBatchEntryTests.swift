import Foundation
import HeraldEngine
import HeraldRedis
import HeraldTestSupport
import XCTest

@testable import HeraldCluster

/// A batch appended as one stream entry reaches a node's view as its events, each with its own seq,
/// and a resume read back from Redis can start in the middle of such an entry.
final class ClusterBatchEntryTests: XCTestCase {
    private var engine: ClusterEngine?
    private var folder: URL?

    override func tearDown() {
        if let engine {
            engine.local.shutdown(grace: 0)
            engine.close()
        }
        if let folder { try? FileManager.default.removeItem(at: folder) }
        super.tearDown()
    }

    func testABatchEntryIsReadAsItsEventsAndReplayedFromItsMiddle() throws {
        let redis = try RedisServerProcess()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-batch-\(UUID().uuidString)")
        self.folder = folder
        var configuration = EngineConfiguration(workers: 1)
        configuration.nodeName = "a"
        let local = JobDispatcher(
            configuration: configuration, environment: JobEnvironment(searchRoot: folder, dataDirectory: folder, newsSource: NewsSource()),
            runners: [])
        let engine = ClusterEngine(local: local, settings: ClusterSettings(address: redis.address, node: "a")) { _ in }
        self.engine = engine
        try engine.start()
        let seen = Locked<[SequencedEvent]>([])
        _ = engine.subscribe { events in seen.withLock { $0.append(contentsOf: events) } }

        // Another node's batch of six news events, as its publisher appends it: one entry.
        let connection = try RedisConnection(address: redis.address)
        let settings = ClusterSettings(address: redis.address, node: "b")
        let batch = (1...6).map { SequencedEvent(seq: $0, ts: 5_000 + $0, event: .news(revision: 100 + $0, items: [])) }
        let reply = try connection.evaluate(
            ClusterAppend.call(
                batch.map { ClusterAppend(event: $0, settings: settings) }, settings: settings, epoch: engine.epoch, ticket: "b:1",
                retry: false))
        let seqs = try XCTUnwrap(reply.array, "\(reply)").compactMap(\.integer)
        XCTAssertEqual(seqs.count, 6)
        XCTAssertEqual(seqs, Array(seqs[0]...seqs[0] + 5), "numbered in order")
        XCTAssertEqual(try connection.command("XLEN", settings.keys.events).integer, 1, "one entry")

        let revisions = { (events: [SequencedEvent]) -> [Int64] in
            events.compactMap { if case .news(let revision, _) = $0.event { revision } else { nil } }
        }
        XCTAssertTrue(poll(timeout: 30) { revisions(seen.value).count == 6 }, "the node's view took the entry's events")
        let news = seen.value.filter { revisions([$0]).count == 1 }
        XCTAssertEqual(news.map(\.seq), seqs.map { Int64($0) })
        XCTAssertEqual(revisions(news), Array(101...106))

        // A viewer that last had the entry's third event gets the fourth to the sixth back from Redis.
        let first = Int64(seqs[0])
        let replayed = engine.commandQueue.sync { engine.replay(from: first + 2, through: first + 5) }
        XCTAssertEqual(replayed?.map(\.seq), [first + 3, first + 4, first + 5])
        XCTAssertEqual(replayed?.map(\.json), news.suffix(3).map(\.json), "the same bytes the view handed out")
        // One that last had a seq the stream no longer holds gets nothing: it needs a snapshot.
        XCTAssertEqual(try connection.command("XTRIM", settings.keys.events, "MINID", "\(first + 6)").integer, 1)
        XCTAssertNil(engine.commandQueue.sync { engine.replay(from: first + 2, through: first + 5) })
    }
}
