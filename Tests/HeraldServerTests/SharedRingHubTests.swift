import HeraldEngine
import HeraldTestSupport
import XCTest

@testable import HeraldServer

/// Hubs of several service threads reading one shared ring through `StreamFanOut`: every client of
/// every thread gets every event once, in order, after its snapshot; snapshots and resumes go live
/// exactly at the ring index they were stamped with; a thread that drains late loses nothing.
final class SharedRingHubTests: XCTestCase {
    private func event(_ seq: Int64) -> SequencedEvent { SequencedEvent(seq: seq, ts: seq, event: .news(revision: seq, items: [])) }

    private func snapshot(seq: Int64) -> EngineReply {
        .snapshot(Snapshot(epoch: "e1", seq: seq, jobs: [], news: NewsFeed(), limits: [:]))
    }

    /// One harness per thread, each hub reading `fanOut`'s ring.
    private func harnesses(_ fanOut: StreamFanOut, maxConnections: Int = 100) -> [HubHarness] {
        (0..<fanOut.routing.threads).map { thread in
            var configuration = ServerConfiguration()
            configuration.maxConnections = maxConnections
            var harness = HubHarness()
            harness.hub = StreamHub(
                configuration: configuration, epoch: "e1", logger: Logger(level: .error), version: "test",
                sharing: fanOut.sharing(thread: thread))
            return harness
        }
    }

    private func drain(_ harness: inout HubHarness, _ fanOut: StreamFanOut, thread: Int) {
        harness.hub.deliver(fanOut.inboxes[thread].drain(), now: harness.now, into: &harness.actions)
    }

    func testEveryClientOfEveryThreadGetsEveryEventInOrderAfterItsSnapshot() {
        let fanOut = StreamFanOut(threads: 2, ringBytes: 1 << 20)
        var hubs = harnesses(fanOut)
        let ids = (0..<2).map { thread in (1...3).map { fanOut.routing.id(serial: $0, thread: thread) } }
        for thread in 0..<2 {
            for id in ids[thread] { hubs[thread].connect(id) }
            XCTAssertTrue(
                hubs[thread].take().contains { if case .ask(.snapshot, .snapshot) = $0 { return true } else { return false } },
                "each thread's hub asks for its snapshot")
        }
        fanOut.post(events: [event(1), event(2)])
        // The engine answers each hub after the events its snapshot covers, then more events come.
        for thread in 0..<2 { fanOut.post(.answer(.snapshot(generation: 0), snapshot(seq: 2)), thread: thread) }
        fanOut.post(events: [event(3), event(4)])
        drain(&hubs[0], fanOut, thread: 0)
        fanOut.post(events: [event(5)])
        drain(&hubs[0], fanOut, thread: 0)
        // Thread 1 drains once, late: the snapshot's stamp, not the view it finds, says where it ends.
        drain(&hubs[1], fanOut, thread: 1)
        for thread in 0..<2 {
            for id in ids[thread] {
                let messages = hubs[thread].written(id).messages
                XCTAssertEqual(messages.first?["type"]?.stringValue, "snapshot", "connection \(id)")
                XCTAssertEqual(messages.dropFirst().compactMap { $0["seq"]?.intValue }, [3, 4, 5], "connection \(id)")
            }
        }
        XCTAssertEqual(fanOut.ring.view.count, 5, "one copy of each frame for both threads")
    }

    func testAResumeReachesTheOwnerAndGoesLiveAtItsStamp() {
        let fanOut = StreamFanOut(threads: 2, ringBytes: 1 << 20)
        var hubs = harnesses(fanOut)
        let id = fanOut.routing.id(serial: 1, thread: 1)
        XCTAssertEqual(hubs[1].hub.handshake(id, Handshake(path: "/ws", query: ["epoch": "e1", "since": "1"])), .accept)
        var actions: [HubAction] = []
        hubs[1].hub.opened(id, now: 0, into: &actions)
        fanOut.post(events: [event(1), event(2), event(3)])
        // The engine replays 2 and 3 from its log: the ring already holds them, and the cursor must
        // start after them, at the stamp.
        let replayed = [2, 3].map { EncodedEvent(event(Int64($0))) }
        fanOut.post(.answer(.resume(id, since: 1), .resume(.events(replayed))))
        fanOut.post(events: [event(4)])
        XCTAssertTrue(fanOut.inboxes[0].drain().ordered.isEmpty, "not thread 0's")
        drain(&hubs[1], fanOut, thread: 1)
        XCTAssertEqual(hubs[1].written(id).messages.compactMap { $0["seq"]?.intValue }, [2, 3, 4], "each event once, in order")
    }

    func testAThreadThatFellAWholeRingBehindResyncsItsClients() {
        let fanOut = StreamFanOut(threads: 1, ringBytes: 16 * 1024)
        var hubs = harnesses(fanOut)
        hubs[0].connect(1)
        fanOut.post(events: [event(1)])
        fanOut.post(.answer(.snapshot(generation: 0), snapshot(seq: 1)), thread: 0)
        // Far more than the ring holds goes by before the thread drains: the stamp fell off the tail.
        fanOut.post(events: (2...2000).map(event))
        drain(&hubs[0], fanOut, thread: 0)
        XCTAssertEqual(hubs[0].hub.metrics.resyncs, 1, "resynced, not sent a stream with a hole")
    }

    func testTheConnectionLimitIsTheServersAcrossThreads() {
        let fanOut = StreamFanOut(threads: 2, ringBytes: 1 << 20, maxConnections: 3)
        var hubs = harnesses(fanOut, maxConnections: 3)
        let id = { (serial: Int, thread: Int) in fanOut.routing.id(serial: serial, thread: thread) }
        hubs[0].connect(id(1, 0))
        hubs[0].connect(id(2, 0))
        XCTAssertEqual(hubs[1].hub.handshake(id(1, 1), Handshake(path: "/ws")), .accept, "a pending handshake holds a place too")
        guard case .refuse(let why) = hubs[1].hub.handshake(id(2, 1), Handshake(path: "/ws")) else {
            return XCTFail("a fourth connection over both threads is refused")
        }
        XCTAssertTrue(why.contains("connection limit (3)"), why)
        var actions: [HubAction] = []
        hubs[1].hub.closed(id(1, 1), into: &actions)
        hubs[0].hub.closed(id(1, 0), into: &actions)
        XCTAssertEqual(fanOut.connections.count, 1, "a closed connection and a handshake that never opened give their places back")
        hubs[1].connect(id(3, 1))
        XCTAssertEqual(fanOut.connections.count, 2)
    }

    func testMetricsAddUpTheOtherThreadsAsOfTheirLastSweep() {
        let fanOut = StreamFanOut(threads: 2, ringBytes: 1 << 20)
        var hubs = harnesses(fanOut)
        for serial in 1...2 { hubs[0].connect(fanOut.routing.id(serial: serial, thread: 0)) }
        for serial in 1...3 { hubs[1].connect(fanOut.routing.id(serial: serial, thread: 1)) }
        XCTAssertEqual(hubs[0].hub.serverMetrics.connectionsOpen, 2, "thread 1 has not swept yet")
        var actions: [HubAction] = []
        hubs[1].hub.sweepKeepalive(now: 1, into: &actions)
        XCTAssertEqual(hubs[0].hub.serverMetrics.connectionsOpen, 5, "its own now, and thread 1's as of its sweep")
        XCTAssertEqual(hubs[0].hub.serverMetrics.connectionsAccepted, 5)
    }
}
