import HeraldAccess
import HeraldEngine
import HeraldTestSupport
import XCTest

@testable import HeraldServer

/// The hub's policies, with no socket: a fake transport records the actions and plays the engine.
final class StreamHubTests: XCTestCase {
    /// Drives a hub the way the transport does and keeps what it asked for.
    private typealias Harness = HubHarness

    private func snapshot(seq: Int64) -> Snapshot {
        Snapshot(epoch: "e1", seq: seq, jobs: [], news: NewsFeed(), limits: [:])
    }

    private func event(_ seq: Int64, job: String = "j-1", size: Int = 0, ts: Int64 = 0) -> Delivery {
        .event(
            SequencedEvent(
                seq: seq, ts: ts,
                event: .progress(job: JobID(job), JobProgress(completed: seq, total: 100, message: String(repeating: "x", count: size)))))
    }

    /// Delivers one 300-byte event per seq, one at a time; `reader` writes each as it comes (checked),
    /// no other connection writes.
    private func deliver(
        _ seqs: ClosedRange<Int64>, readBy reader: ConnectionID, to harness: inout Harness, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        for seq in seqs {
            harness.deliver([event(seq, job: "j-\(seq)", size: 300)])
            XCTAssertEqual(
                harness.written(reader).messages.map { $0["seq"]?.intValue }, [seq], "connection \(reader) misses nothing",
                file: file, line: line)
        }
    }

    private func asks(_ actions: [HubAction]) -> [(EngineRequest, HubTicket)] {
        actions.compactMap { if case .ask(let request, let ticket) = $0 { return (request, ticket) } else { return nil } }
    }

    // MARK: - Handshakes

    func testHandshakeRefusesOtherPathsForeignOriginsAndPastTheLimit() {
        var harness = Harness { $0.maxConnections = 2 }
        XCTAssertEqual(harness.hub.handshake(1, Handshake(path: "/other")), .refuse("only /ws accepts WebSocket connections"))
        XCTAssertEqual(
            harness.hub.handshake(1, Handshake(path: "/ws", origin: "http://evil.example", host: "127.0.0.1:8080")),
            .refuse("origin http://evil.example is not allowed"))
        XCTAssertEqual(harness.hub.handshake(1, Handshake(path: "/ws", origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080")), .accept)
        XCTAssertEqual(harness.hub.handshake(2, Handshake(path: "/ws")), .accept)
        XCTAssertEqual(harness.hub.handshake(3, Handshake(path: "/ws")), .refuse("connection limit (2) reached"))
        harness.hub.closed(2, into: &harness.actions)  // a handshake that never completed no longer counts
        XCTAssertEqual(harness.hub.handshake(3, Handshake(path: "/ws")), .accept)
        XCTAssertEqual(harness.hub.metrics.connectionsRefused, 3)
    }

    // MARK: - Snapshots and fan-out

    func testConnectionsShareOneSnapshotAndGetOnlyLaterEvents() {
        var harness = Harness()
        harness.connect(1)
        harness.connect(2)
        let requests = asks(harness.take())
        XCTAssertEqual(requests.count, 1, "one snapshot request serves both connections")
        XCTAssertEqual(requests.first?.0, .snapshot)
        XCTAssertTrue(harness.written(1).messages.isEmpty, "nothing before the snapshot")
        // Events before the snapshot's answer are skipped; the answer is at seq 5; later events follow.
        harness.deliver([event(4), .answer(.snapshot(generation: 0), .snapshot(snapshot(seq: 5))), event(6), event(7)])
        for id in [1, 2] {
            let messages = harness.written(id).messages
            XCTAssertEqual(messages.map { $0["type"]?.stringValue }, ["snapshot", "progress", "progress"])
            XCTAssertEqual(messages.first?["reason"]?.stringValue, "connect")
            XCTAssertEqual(messages.dropFirst().map { $0["seq"]?.intValue }, [6, 7])
        }
        XCTAssertEqual(harness.hub.metrics.framesSent, 6)
    }

    /// An event every connection waits for is one request to write them all; when only some wait
    /// (the rest have not written the last one yet), each of those is asked by itself.
    func testAnEventForNearlyEveryoneAsksAllAtOnceAndForAFewAsksEach() {
        var harness = Harness()
        for id in 1...10 { harness.connectLive(id) }
        _ = harness.take()
        harness.deliver([event(1)])
        var actions = harness.take()
        XCTAssertEqual(actions.filter { if case .wantWritableAll = $0 { true } else { false } }.count, 1)
        XCTAssertFalse(actions.contains { if case .wantWritable = $0 { true } else { false } }, "no request per connection")
        for id in 1...10 { XCTAssertEqual(harness.written(id).messages.map { $0["seq"]?.intValue }, [1]) }

        // Eight have not written event 2 when event 3 comes: only the two that had are asked.
        harness.deliver([event(2)])
        for id in 9...10 { _ = harness.written(id) }
        _ = harness.take()
        harness.deliver([event(3)])
        actions = harness.take()
        let asked = actions.compactMap { if case .wantWritable(let id) = $0 { id } else { nil } }
        XCTAssertEqual(asked.sorted(), [9, 10])
        XCTAssertFalse(actions.contains { if case .wantWritableAll = $0 { true } else { false } })
        for id in 1...8 { XCTAssertEqual(harness.written(id).messages.map { $0["seq"]?.intValue }, [2, 3], "connection \(id)") }
    }

    func testResumeIsAskedOfTheEngineAndItsEventsFollow() {
        var harness = Harness()
        harness.connect(1, query: ["epoch": "e1", "since": "3"])
        let requests = asks(harness.take())
        XCTAssertEqual(requests.map(\.0), [.resume(epoch: "e1", since: 3)])
        let missed = [4, 5].map { EncodedEvent(SequencedEvent(seq: $0, ts: 0, event: .news(revision: $0, items: []))) }
        harness.deliver([event(4), .answer(.resume(1, since: 3), .resume(.events(missed))), event(6)])
        XCTAssertEqual(
            harness.written(1).messages.map { $0["seq"]?.intValue }, [4, 5, 6], "the missed events, then the live ones, no repeat")
    }

    // MARK: - Delivery latency

    func testEachWriteBatchObservesItsOldestLiveEvent() {
        var harness = Harness()
        harness.connectLive(1)
        XCTAssertEqual(harness.hub.metrics.deliveryLatencyCount, 0, "a snapshot is not an event")
        harness.nowMicros = 100_000_000
        // One batch with events 3 ms, 200 ms and 20 ms old: one observation, the worst, 0.2 s.
        harness.deliver([event(1, ts: 99_997_000), event(2, ts: 99_800_000), event(3, ts: 99_980_000)])
        XCTAssertEqual(harness.written(1).messages.count, 3)
        XCTAssertEqual(harness.hub.metrics.deliveryLatencyCount, 1)
        XCTAssertEqual(harness.hub.metrics.deliveryLatencySum, 0.2, accuracy: 1e-9)
        // An event stamped after "now" (the wall clock stepped back) counts as no delay.
        harness.deliver([event(4, ts: 100_500_000)])
        _ = harness.written(1)
        let bounds = ServerMetrics.deliveryLatencyBounds
        let buckets = Dictionary(uniqueKeysWithValues: zip(bounds, harness.hub.metrics.deliveryLatencyBuckets))
        XCTAssertEqual(buckets[0.001], 1)
        XCTAssertEqual(buckets[0.1], 1, "cumulative: the 0.2 s observation is above 0.1")
        XCTAssertEqual(buckets[0.25], 2)
        XCTAssertEqual(buckets[.infinity], 2)
        XCTAssertEqual(harness.hub.metrics.deliveryLatencySum, 0.2, accuracy: 1e-9)

        let text = harness.hub.metrics.render(engine: EngineStatistics(), uptimeSeconds: 1)
        XCTAssertTrue(text.contains("# TYPE herald_delivery_latency_seconds histogram\n"), text)
        XCTAssertTrue(text.contains("herald_delivery_latency_seconds_bucket{le=\"0.1\"} 1\n"), text)
        XCTAssertTrue(text.contains("herald_delivery_latency_seconds_bucket{le=\"0.25\"} 2\n"), text)
        XCTAssertTrue(text.contains("herald_delivery_latency_seconds_bucket{le=\"+Inf\"} 2\n"), text)
        XCTAssertTrue(text.contains("herald_delivery_latency_seconds_sum 0.200000\n"), text)
        XCTAssertTrue(text.contains("herald_delivery_latency_seconds_count 2\n"), text)
    }

    func testBatchesSplitByTheWriteLimitAreObservedEachAndReplaysAreNot() {
        var harness = Harness { $0.writeBatchBytes = 1 }  // one frame per write
        harness.nowMicros = 50_000_000
        harness.connect(1, query: ["epoch": "e1", "since": "3"])
        // The resume's events are 50 s old (the client was away): not observed. The live one is.
        let missed = [4, 5].map { EncodedEvent(SequencedEvent(seq: $0, ts: 0, event: .news(revision: $0, items: []))) }
        harness.deliver([.answer(.resume(1, since: 3), .resume(.events(missed))), event(6, ts: 49_960_000)])
        XCTAssertEqual(harness.written(1).messages.map { $0["seq"]?.intValue }, [4, 5, 6])
        XCTAssertEqual(harness.hub.metrics.deliveryLatencyCount, 1)
        XCTAssertEqual(harness.hub.metrics.deliveryLatencySum, 0.04, accuracy: 1e-9)
        harness.deliver([event(7, ts: 49_990_000), event(8, ts: 49_998_000)])
        _ = harness.written(1)
        XCTAssertEqual(harness.hub.metrics.deliveryLatencyCount, 3, "two writes, two observations")
        XCTAssertEqual(harness.hub.metrics.deliveryLatencySum, 0.04 + 0.01 + 0.002, accuracy: 1e-9)
    }

    // MARK: - Slow clients

    func testAClientThatFallsOffTheRingIsResyncedThenClosedWith4008() {
        var harness = Harness {
            $0.ringBytes = 4096
            $0.resyncLimit = 2
        }
        harness.connectLive(1)
        harness.connectLive(2)
        _ = harness.take()
        // Connection 2 writes as events come; connection 1 writes nothing: the ring (about twelve
        // of these events) moves past it, but not a whole ring more.
        deliver(1...16, readBy: 2, to: &harness)
        XCTAssertEqual(harness.hub.metrics.resyncs, 1, "connection 1 fell off the ring once")
        XCTAssertTrue(asks(harness.take()).isEmpty, "no snapshot is made for it while it cannot write")
        // It can write again: its snapshot is asked for now.
        XCTAssertTrue(harness.written(1).messages.isEmpty)
        XCTAssertEqual(asks(harness.take()).map(\.0), [.snapshot])
        harness.deliver([.answer(.snapshot(generation: 0), .snapshot(snapshot(seq: 16)))])
        // Again within the window: closed with 4008 once what is queued is written.
        deliver(17...50, readBy: 2, to: &harness)
        XCTAssertEqual(harness.hub.metrics.slowClientCloses, 1)
        XCTAssertEqual(harness.hub.metrics.resyncs, 1)
        let (messages, end) = harness.written(1)
        XCTAssertTrue(messages.isEmpty, "the backlog (the unsent snapshot) was dropped: only the close follows")
        XCTAssertEqual(end, .close(code: 4008, reason: "too slow: resynced 2 times in 10 s"))
    }

    func testAReaderThatNeverWritesAgainHoldsNoSnapshotAndIsClosedWith4008() {
        var harness = Harness {
            $0.ringBytes = 4096
            $0.resyncLimit = 2
        }
        harness.connectLive(1)
        harness.connectLive(2)
        _ = harness.take()
        // Connection 1 never gets a writable callback again (its socket stays full); connection 2
        // reads everything. The ring goes around twice past connection 1.
        deliver(1...60, readBy: 2, to: &harness)
        XCTAssertTrue(asks(harness.take()).isEmpty, "no snapshot was made for a connection that could not take it")
        XCTAssertEqual(harness.hub.metrics.resyncs, 1)
        XCTAssertEqual(harness.hub.metrics.slowClientCloses, 1, "the ring passing it again counts as a second resync")
        let (messages, end) = harness.written(1)
        XCTAssertTrue(messages.isEmpty)
        XCTAssertEqual(end, .close(code: 4008, reason: "too slow: resynced 2 times in 10 s"))
    }

    /// The exact rule for a reader that cannot write: it is counted one resync when the ring drops
    /// an event it had not been sent, and one more each time the ring then drops the first event
    /// after the point where it was last counted (a whole ring went by), however the events come:
    /// a burst the engine had numbered before the reader fell off counts like any other. No
    /// snapshot is made for it meanwhile, so none marks where its count restarts. (A snapshot asked
    /// for at once, as before `StreamPosition.behind`, came after such a burst and restarted the
    /// count there: the rest of the burst went uncounted, and fewer stalled readers reached 4008.)
    func testAReaderThatCannotWriteIsCountedOnceForEachWholeRingSinceItWasLastCounted() {
        var harness = Harness {
            $0.ringBytes = 4096
            $0.resyncLimit = 3
        }
        harness.connectLive(1)
        harness.connectLive(2)
        _ = harness.take()
        // The same frames in a ring of the same size: when it drops an event, the hub's does too.
        var model = FrameRing(capacityBytes: 4096)
        var countedAfter: [Int64] = []  // the newest seq when each resync (or the close) was counted
        var seq: Int64 = 0
        while countedAfter.count < 3, seq < 200 {
            seq += 1
            let delivery = event(seq, job: "j-\(seq)", size: 300)
            guard case .event(let sequenced) = delivery else { return XCTFail("an event") }
            model.append(WebSocketFrame.text(sequenced.json), seq: seq, ts: 0)
            harness.deliver([delivery])
            XCTAssertEqual(harness.written(2).messages.map { $0["seq"]?.intValue }, [seq], "connection 2 misses nothing")
            let counted = harness.hub.metrics.resyncs + harness.hub.metrics.slowClientCloses
            if counted > countedAfter.count {
                XCTAssertEqual(counted, countedAfter.count + 1, "one count per event at most")
                if let last = countedAfter.last {
                    XCTAssertEqual(model.firstSeq, last + 2, "counted when the first event after the last count left the ring")
                }
                countedAfter.append(seq)
            }
        }
        XCTAssertEqual(harness.hub.metrics.resyncs, 2)
        XCTAssertEqual(harness.hub.metrics.slowClientCloses, 1, "the third count closes it")
        XCTAssertEqual(countedAfter.count, 3)
        XCTAssertTrue(asks(harness.take()).isEmpty, "no snapshot was asked for it")
        XCTAssertEqual(harness.written(1).end, .close(code: 4008, reason: "too slow: resynced 3 times in 10 s"))
    }

    func testAReaderThatFellBehindAndCanWriteGetsTheSnapshotThenTheStream() {
        var harness = Harness { $0.ringBytes = 4096 }
        harness.connectLive(1)
        _ = harness.take()
        for seq in Int64(1)...16 { harness.deliver([event(seq, job: "j-\(seq)", size: 300)]) }
        XCTAssertEqual(harness.hub.metrics.resyncs, 1)
        XCTAssertTrue(harness.written(1).messages.isEmpty, "its backlog is gone; its snapshot is asked for now")
        XCTAssertEqual(asks(harness.take()).map(\.1), [.snapshot(generation: 0)])
        harness.deliver([.answer(.snapshot(generation: 0), .snapshot(snapshot(seq: 16))), event(17)])
        let messages = harness.written(1).messages
        XCTAssertEqual(messages.first?["reason"]?.stringValue, "resync")
        XCTAssertEqual(messages.dropFirst().map { $0["seq"]?.intValue }, [17])
    }

    func testBacklogCountSeesConnectionsOverAQuarterOfTheRing() {
        var harness = Harness { $0.ringBytes = 8192 }
        harness.connectLive(1)
        harness.connectLive(2)
        XCTAssertEqual(harness.hub.backlogCount.backlogged, 0)
        harness.deliver((1...8).map { event($0, job: "j-\($0)", size: 300) })
        XCTAssertEqual(harness.hub.backlogCount.backlogged, 2, "both are over 2,048 bytes behind")
        XCTAssertEqual(harness.hub.backlogCount.total, 2)
        _ = harness.written(1)
        XCTAssertEqual(harness.hub.backlogCount.backlogged, 1, "connection 1 wrote its backlog")
    }

    func testAReaderThatKeepsUpIsNeverResyncedHoweverMuchPassesThroughTheRing() {
        var harness = Harness { $0.ringBytes = 4096 }
        harness.connectLive(1)
        deliver(1...200, readBy: 1, to: &harness)
        XCTAssertEqual(harness.hub.metrics.resyncs, 0, "60 KB through a 4 KB ring, read as it came")
    }

    func testInboxOverflowResyncsEveryoneWithASnapshotAskedAfterIt() {
        var harness = Harness()
        harness.connect(1)
        harness.connect(2)
        _ = harness.take()
        harness.deliver([.answer(.snapshot(generation: 0), .snapshot(snapshot(seq: 0))), event(1)])
        _ = harness.written(1)
        _ = harness.written(2)
        // A snapshot asked for before the overflow does not cover what was dropped.
        harness.connect(3)
        _ = harness.take()
        harness.deliver([.answer(.snapshot(generation: 0), .snapshot(snapshot(seq: 3)))], overflowed: true)
        XCTAssertEqual(asks(harness.take()).map(\.1), [.snapshot(generation: 1)])
        XCTAssertTrue(harness.written(1).messages.isEmpty)
        XCTAssertTrue(harness.written(3).messages.isEmpty, "the old answer serves nobody")
        harness.deliver([event(9), .answer(.snapshot(generation: 1), .snapshot(snapshot(seq: 9))), event(10)])
        for id in [1, 2, 3] {
            XCTAssertEqual(harness.written(id).messages.map { $0["seq"]?.intValue }, [9, 10], "connection \(id)")
        }
        XCTAssertEqual(harness.hub.metrics.resyncs, 3)
    }

    func testAStreamResetEmptiesTheRingAndGivesEveryoneASnapshotOfTheNewStream() {
        var harness = Harness()
        harness.connectLive(1)
        harness.connectLive(2)
        harness.deliver((1...5).map { event($0) })
        _ = harness.written(1)  // connection 2 has not read its five events yet
        _ = harness.take()
        // A cluster node's Redis lost its data: seqs start again at 1 under a new epoch.
        harness.deliver([event(1)], streamReset: true)
        XCTAssertEqual(asks(harness.take()).map(\.1), [.snapshot(generation: 1)])
        XCTAssertTrue(harness.written(2).messages.isEmpty, "nothing of the old stream, nor of the new before its snapshot")
        let fresh = Snapshot(epoch: "e2", seq: 1, jobs: [], news: NewsFeed(), limits: [:])
        harness.deliver([.answer(.snapshot(generation: 1), .snapshot(fresh)), event(2)])
        for id: ConnectionID in [1, 2] {
            let messages = harness.written(id).messages
            XCTAssertEqual(messages.first?["epoch"]?.stringValue, "e2", "connection \(id)")
            XCTAssertEqual(messages.first?["reason"]?.stringValue, "resync")
            XCTAssertEqual(messages.dropFirst().map { $0["seq"]?.intValue }, [2], "then the new stream, from after the snapshot")
        }
    }

    func testEverySnapshotSaysWhetherStartAndCancelNeedAToken() {
        for token in ["s3cret", nil] as [String?] {
            var harness = Harness { $0.controlToken = token }
            harness.connect(1)
            harness.connect(2, query: ["epoch": "e0", "since": "3"])  // another epoch: answered with a snapshot
            _ = harness.take()
            harness.deliver([
                .answer(.snapshot(generation: 0), .snapshot(snapshot(seq: 5))),
                .answer(.resume(2, since: 3), .resume(.snapshot(snapshot(seq: 5)))),
            ])
            var snapshots = harness.written(1).messages + harness.written(2).messages
            harness.deliver([], overflowed: true)  // both resynced
            harness.deliver([.answer(.snapshot(generation: 1), .snapshot(snapshot(seq: 6)))])
            snapshots += harness.written(1).messages + harness.written(2).messages
            XCTAssertEqual(snapshots.map { $0["reason"]?.stringValue }, ["connect", "resume", "resync", "resync"])
            for message in snapshots {
                XCTAssertEqual(
                    message["limits"]?["authRequired"]?.boolValue, token != nil,
                    "\(message["reason"]?.stringValue ?? "?") snapshot, token \(token ?? "none")")
                XCTAssertEqual(message["limits"]?["maxMessageBytes"]?.intValue, 65_536, "the other limit the hub adds stays")
            }
        }
    }

    // MARK: - Commands

    func testCommandsGoToTheEngineAndTheAnswerIsTheReply() throws {
        var harness = Harness()
        harness.connectLive(1)
        _ = harness.take()
        harness.send(1, #"{"type":"start","kind":"sort","params":{"count":5},"requestId":"r1"}"#)
        let requests = asks(harness.take())
        var expected = StartRequest(kind: "sort", params: ["count": 5], requestId: "r1")
        expected.startedBy = "anonymous"
        XCTAssertEqual(requests.map(\.0), [.start(expected)], "the start names who asked: the local default's anonymous")
        XCTAssertEqual(requests.map(\.1), [.command(1, type: "start", requestId: "r1")])
        harness.deliver([.answer(.command(1, type: "start", requestId: "r1"), .job(.failure(EngineError(.busy, "a sort is running"))))])
        let reply = try XCTUnwrap(harness.written(1).messages.first)
        XCTAssertEqual(reply["type"]?.stringValue, "error")
        XCTAssertEqual(reply["code"]?.stringValue, "busy")
        XCTAssertEqual(reply["requestId"]?.stringValue, "r1")
        XCTAssertEqual(harness.hub.metrics.commands["start/busy"], 1)
    }

    func testPingIsAnsweredWithoutTheEngineButAfterTheFirstSnapshot() {
        var harness = Harness()
        harness.connect(1)
        harness.send(1, #"{"type":"ping"}"#)
        harness.send(1, "{not json")
        harness.send(1, "binary", isBinary: true)
        XCTAssertTrue(asks(harness.take()).map(\.0).allSatisfy { $0 == .snapshot }, "none of these reaches the engine")
        XCTAssertTrue(harness.written(1).messages.isEmpty, "replies wait for the snapshot, which is always first")
        harness.deliver([.answer(.snapshot(generation: 0), .snapshot(snapshot(seq: 3))), event(4)])
        let messages = harness.written(1).messages
        XCTAssertEqual(messages.map { $0["type"]?.stringValue }, ["snapshot", "pong", "error", "error", "progress"])
        XCTAssertEqual(messages[2]["code"]?.stringValue, "bad_json")
        XCTAssertEqual(messages[3]["code"]?.stringValue, "bad_request")
    }

    func testControlNeedsTheTokenWhichAuthGrants() {
        var harness = Harness { $0.controlToken = "s3cret" }
        harness.connectLive(1)
        _ = harness.take()
        harness.send(1, #"{"type":"cancel","job":"j-1"}"#)
        XCTAssertTrue(asks(harness.take()).isEmpty, "refused before the engine")
        harness.send(1, #"{"type":"auth","token":"wrong"}"#)
        harness.send(1, #"{"type":"auth","token":"s3cret"}"#)
        harness.send(1, #"{"type":"cancel","job":"j-1"}"#)
        let tokenHolder = Principal(name: "token", role: .admin, source: .controlToken)
        XCTAssertEqual(asks(harness.take()).map(\.0), [.cancel("j-1", by: tokenHolder)])
        XCTAssertEqual(
            harness.written(1).messages.map { $0["code"]?.stringValue ?? $0["type"]?.stringValue },
            ["unauthorized", "unauthorized", "accepted"])
        harness.connectLive(2, authorization: "Bearer s3cret")
        harness.send(2, #"{"type":"cancel","job":"j-2"}"#)
        XCTAssertEqual(asks(harness.take()).map(\.0).last, .cancel("j-2", by: tokenHolder), "a bearer token at the handshake authorises")
    }

    func testSchedulesAreListedByAnyoneAndControlledWithTheToken() throws {
        var harness = Harness { $0.controlToken = "s3cret" }
        harness.connectLive(1)
        _ = harness.take()
        harness.send(1, #"{"type":"schedules","requestId":"l1"}"#)
        harness.send(1, #"{"type":"schedule","name":"nightly","action":"pause","requestId":"p1"}"#)
        XCTAssertEqual(asks(harness.take()).map(\.1), [.command(1, type: "schedules", requestId: "l1")], "the pause is refused here")
        harness.deliver([.answer(.command(1, type: "schedules", requestId: "l1"), .schedules([]))])
        var messages = harness.written(1).messages
        XCTAssertEqual(messages.map { $0["type"]?.stringValue }, ["error", "schedules"])
        XCTAssertEqual(messages[0]["code"], "unauthorized")
        XCTAssertEqual(messages[0]["requestId"], "p1")
        XCTAssertEqual(messages[1], ["type": "schedules", "requestId": "l1", "schedules": []])

        harness.send(1, #"{"type":"auth","token":"s3cret"}"#)
        harness.send(1, #"{"type":"schedule","name":"nightly","action":"run","requestId":"p2"}"#)
        let requests = asks(harness.take())
        XCTAssertEqual(requests.map(\.0), [.controlSchedule(name: "nightly", .run)])
        XCTAssertEqual(requests.map(\.1), [.command(1, type: "schedule", requestId: "p2")])
        let refusal = EngineError(.notFound, "no schedule \"nightly\"; known: backup")
        harness.deliver([.answer(.command(1, type: "schedule", requestId: "p2"), .schedule(.failure(refusal)))])
        messages = harness.written(1).messages
        XCTAssertEqual(messages.last, ["type": "error", "requestId": "p2", "code": "not_found", "message": .string(refusal.message)])
        XCTAssertEqual(harness.hub.metrics.commands["schedules/ok"], 1)
        XCTAssertEqual(harness.hub.metrics.commands["schedule/unauthorized"], 1)
        XCTAssertEqual(harness.hub.metrics.commands["schedule/not_found"], 1)
    }

    func testCommandFloodIsRateLimited() {
        var harness = Harness {
            $0.commandsPerSecond = 1
            $0.commandBurst = 3
        }
        harness.connectLive(1)
        for _ in 0..<5 { harness.send(1, #"{"type":"ping"}"#) }
        XCTAssertEqual(
            harness.written(1).messages.map { $0["code"]?.stringValue ?? $0["type"]?.stringValue },
            ["pong", "pong", "pong", "rate_limited", "rate_limited"])
        harness.now += 1
        harness.send(1, #"{"type":"ping"}"#)
        XCTAssertEqual(harness.written(1).messages.first?["type"]?.stringValue, "pong", "a token back after a second")
    }

    func testOversizedMessageClosesWith1009() {
        var harness = Harness { $0.maxMessageBytes = 10 }
        harness.connect(1)
        harness.send(1, String(repeating: "a", count: 11))
        XCTAssertEqual(harness.written(1).end, .close(code: 1009, reason: "message over 10 bytes"))
        harness.send(1, #"{"type":"ping"}"#)
        XCTAssertEqual(harness.written(1).end, .close(code: 1009, reason: "message over 10 bytes"), "later input is dropped")
    }

    func testClosingSendsGoingAwayToEveryone() {
        var harness = Harness()
        harness.connect(1)
        harness.deliver([], stop: true)
        XCTAssertTrue(harness.hub.isClosing)
        XCTAssertEqual(harness.written(1).end, .close(code: 1001, reason: "server shutting down"))
        XCTAssertEqual(harness.hub.handshake(2, Handshake(path: "/ws")), .refuse("shutting down"))
    }

    // MARK: - HTTP

    func testHealthIsAnsweredFromTheEngineAndALateAnswerIsDropped() throws {
        var harness = Harness()
        harness.hub.httpRequest(10, HTTPRequest(method: "GET", path: "/healthz"), into: &harness.actions)
        XCTAssertEqual(asks(harness.take()).map(\.1), [.http(10, HTTPQuery("GET /healthz"))])
        var statistics = EngineStatistics()
        statistics.seq = 42
        harness.deliver([.answer(.http(10, HTTPQuery("GET /healthz")), .statistics(statistics))])
        guard case .respond(10, let response)? = harness.take().first else { return XCTFail("no response") }
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(try JSONParser.parse(response.body)["seq"]?.intValue, 42)

        harness.hub.httpRequest(11, HTTPRequest(method: "GET", path: "/metrics"), into: &harness.actions)
        _ = harness.take()
        harness.hub.closed(11, into: &harness.actions)
        harness.deliver([.answer(.http(11, HTTPQuery("GET /metrics")), .statistics(statistics))])
        XCTAssertTrue(harness.take().isEmpty, "the client left: nothing to answer")
    }

    func testFilesAreReadOffTheServiceThreadAndRefusalsAreImmediate() {
        var harness = Harness()
        harness.hub.httpRequest(1, HTTPRequest(method: "GET", path: "/app.js"), into: &harness.actions)
        guard case .readFile(1, let path, let allowOrigin)? = harness.take().first else { return XCTFail("no file read asked") }
        XCTAssertEqual(path, "/app.js")
        XCTAssertNil(allowOrigin)
        harness.hub.httpRequest(2, HTTPRequest(method: "DELETE", path: "/api/jobs"), into: &harness.actions)
        harness.hub.httpRequest(3, HTTPRequest(method: "GET", path: "/api/jobs/j-1/results", query: ["limit": "0"]), into: &harness.actions)
        harness.hub.httpRequest(4, HTTPRequest(method: "GET", path: "/ws"), into: &harness.actions)
        let statuses = harness.take().compactMap { if case .respond(_, let response) = $0 { return response.status } else { return nil } }
        XCTAssertEqual(statuses, [405, 400, 426])
    }

    func testTheClientModuleIsReadableFromAnAllowedOriginOnly() {
        var harness = Harness { $0.allowedOrigins = ["http://127.0.0.1:9999"] }
        let requests = [
            HTTPRequest(method: "GET", path: "/client.js", origin: "http://127.0.0.1:9999"),
            HTTPRequest(method: "GET", path: "/client.js", origin: "http://evil.example"),
            HTTPRequest(method: "GET", path: "/client.js"),
            HTTPRequest(method: "GET", path: "/app.js", origin: "http://127.0.0.1:9999"),
        ]
        for (id, request) in requests.enumerated() { harness.hub.httpRequest(ConnectionID(id), request, into: &harness.actions) }
        let allowed = harness.take().compactMap { action -> String?? in
            if case .readFile(_, _, let allowOrigin) = action { return allowOrigin } else { return nil }
        }
        XCTAssertEqual(allowed, ["http://127.0.0.1:9999", nil, nil, nil])
        var open = Harness { $0.allowedOrigins = ["*"] }
        open.hub.httpRequest(1, HTTPRequest(method: "GET", path: "/client.js", origin: "http://a.example"), into: &open.actions)
        guard case .readFile(1, _, let allowOrigin)? = open.take().first else { return XCTFail("no file read asked") }
        XCTAssertEqual(allowOrigin, "http://a.example")
    }

    func testHistoryPagesAreAskedOfTheEngineAndBadParametersRefusedAtOnce() throws {
        var harness = Harness()
        harness.hub.httpRequest(1, HTTPRequest(method: "GET", path: "/api/jobs"), into: &harness.actions)
        harness.hub.httpRequest(
            2, HTTPRequest(method: "GET", path: "/api/jobs", query: ["limit": "2", "kind": "sort"]), into: &harness.actions)
        harness.hub.httpRequest(3, HTTPRequest(method: "GET", path: "/api/jobs", query: ["state": "nope"]), into: &harness.actions)
        let actions = harness.take()
        XCTAssertEqual(
            asks(actions).map(\.0), [.snapshot, .history(HistoryQuery(kinds: [.sort], limit: 2))], "no parameter: the list as before")
        XCTAssertEqual(asks(actions).map(\.1), [.http(1, HTTPQuery("GET /api/jobs")), .http(2, HTTPQuery("GET /api/jobs"))])
        guard case .respond(3, let refused)? = actions.last else { return XCTFail("no refusal") }
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(try JSONParser.parse(refused.body)["code"], "bad_request")

        let job = JobRecord(id: JobID("j-a"), kind: .sort, params: [:], state: .succeeded, createdAt: 7, finishedAt: 8)
        harness.deliver([
            .answer(.http(2, HTTPQuery("GET /api/jobs")), .history(.success(HistoryPage(jobs: [job], next: HistoryCursor(job)))))
        ])
        guard case .respond(2, let response)? = harness.take().first else { return XCTFail("no response") }
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), JSONWriter.string(["jobs": [job.json], "next": "7.j-a"]) + "\n")
    }

    func testRESTStartNeedsTheTokenWhenOneIsSet() {
        var harness = Harness { $0.controlToken = "t" }
        let body = Array(#"{"kind":"sort"}"#.utf8)
        harness.hub.httpRequest(1, HTTPRequest(method: "POST", path: "/api/jobs", body: body), into: &harness.actions)
        harness.hub.httpRequest(
            2, HTTPRequest(method: "POST", path: "/api/jobs", body: body, authorization: "Bearer t"), into: &harness.actions)
        let actions = harness.take()
        guard case .respond(1, let refused)? = actions.first else { return XCTFail("no refusal") }
        XCTAssertEqual(refused.status, 401)
        XCTAssertEqual(asks(actions).map(\.1), [.http(2, HTTPQuery("POST /api/jobs"))])
    }

    // MARK: - Workers

    private static let hello = #"{"type":"hello","role":"worker","name":"gpu-1","kinds":["encode"],"slots":2,"version":1}"#

    private func attaches(_ actions: [HubAction]) -> [ConnectionID] {
        actions.compactMap { if case .attachWorker(let id, _) = $0 { return id } else { return nil } }
    }

    func testAWorkerFromLoopbackIsAttachedAndLeavesTheStream() {
        var harness = Harness()
        harness.connectLive(1)
        harness.send(1, Self.hello)
        XCTAssertEqual(attaches(harness.take()), [1])
        harness.deliver([.worker(1, .accepted(name: "gpu-1", lease: 30))])
        XCTAssertEqual(harness.written(1).messages.map { $0["type"]?.stringValue }, ["accepted"])
        harness.deliver([event(1)])
        XCTAssertEqual(harness.written(1).messages.count, 0, "a worker gets directives, not events")
        _ = harness.take()
        harness.send(1, #"{"type":"beat"}"#)
        guard case .workerReport(1, .beat)? = harness.take().first else { return XCTFail("the beat was not passed on") }
        harness.hub.closed(1, into: &harness.actions)
        guard case .detachWorker(1)? = harness.take().first else { return XCTFail("no detach") }
    }

    func testWorkersAreRefusedFromElsewhereWithoutAWorkerTokenAndViewersCannotReport() {
        var harness = Harness()
        harness.connect(1, peer: "192.0.2.7")
        harness.send(1, Self.hello)
        XCTAssertEqual(attaches(harness.take()), [])
        harness.deliver([.answer(.snapshot(generation: 0), .snapshot(snapshot(seq: 0)))])
        let refused = harness.written(1).messages.last
        XCTAssertEqual(refused?["code"], "unauthorized")
        XCTAssertTrue(refused?["message"]?.stringValue?.contains("loopback only") == true)

        harness.connectLive(2)
        harness.send(2, #"{"type":"result","job":"j-a","attempt":1,"summary":{}}"#)
        XCTAssertTrue(harness.take().allSatisfy { if case .workerReport = $0 { return false } else { return true } })
        XCTAssertEqual(harness.written(2).messages.last?["code"], "unauthorized", "a viewer pretending to be a worker")
    }

    func testWithAWorkerTokenOnlyThatTokenAttachesAWorker() {
        var harness = Harness {
            $0.workerToken = "w-secret"
            $0.controlToken = "c-secret"
        }
        harness.connectLive(1, authorization: "Bearer c-secret")
        harness.send(1, Self.hello)
        XCTAssertEqual(attaches(harness.take()), [], "a viewer's control token is not a worker token")
        XCTAssertEqual(harness.written(1).messages.last?["code"], "forbidden", "a known identity that may not work")
        harness.connectLive(2)
        harness.send(2, #"{"type":"auth","token":"w-secret"}"#)
        harness.send(2, Self.hello)
        XCTAssertEqual(attaches(harness.take()), [2])
        harness.connectLive(3, peer: "192.0.2.7")
        harness.send(3, Self.hello.replacingOccurrences(of: #""version":1"#, with: #""version":1,"token":"w-secret""#))
        XCTAssertEqual(attaches(harness.take()), [3], "the token may come in the hello, from anywhere")
    }

    func testARefusedHelloIsSaidAndTheConnectionClosedAndALostLeaseCloses4009() {
        var harness = Harness()
        harness.connectLive(1)
        harness.send(1, Self.hello)
        _ = harness.take()
        harness.deliver([.worker(1, .error(EngineError(.kindMismatch, "kind encode: params differ"), job: nil, attempt: nil))])
        let refused = harness.written(1)
        XCTAssertEqual(refused.messages.last?["code"], "kind_mismatch")
        XCTAssertEqual(refused.end, .close(code: 1008, reason: "kind encode: params differ"))

        harness.connectLive(2)
        harness.send(2, Self.hello)
        harness.deliver([.worker(2, .accepted(name: "gpu-1", lease: 30)), .worker(2, .drop(reason: "worker lease expired"))])
        XCTAssertEqual(harness.written(2).end, .close(code: 4009, reason: "worker lease expired"))
    }

    func testAReportWhileALostLeasesConnectionClosesIsAnsweredLeaseLost() {
        var harness = Harness()
        harness.connectLive(1)
        harness.send(1, Self.hello)
        _ = harness.take()
        harness.deliver([.worker(1, .accepted(name: "gpu-1", lease: 30)), .worker(1, .drop(reason: "worker lease expired"))])
        // Before the close frame is out, the worker reports on its run, and beats.
        harness.send(1, #"{"type":"progress","job":"j-a","attempt":2,"completed":1,"total":4}"#)
        harness.send(1, #"{"type":"beat"}"#)
        XCTAssertTrue(harness.take().allSatisfy { if case .workerReport = $0 { return false } else { return true } })
        let written = harness.written(1)
        let refusal = written.messages.last
        XCTAssertEqual(refusal?["code"], "lease_lost", "not unauthorized, not silence: \(written.messages)")
        XCTAssertEqual(refusal?["job"], "j-a")
        XCTAssertEqual(refusal?["attempt"], 2)
        XCTAssertEqual(written.messages.filter { $0["type"] == "error" }.count, 1, "a beat is about no run: no answer")
        XCTAssertEqual(written.end, .close(code: 4009, reason: "worker lease expired"))
    }

    // MARK: - Keepalive

    /// The connection ids among `actions` asked to write, and those dropped.
    private func keepaliveActions(_ actions: [HubAction]) -> (pinged: [ConnectionID], dropped: [ConnectionID]) {
        var pinged: [ConnectionID] = []
        var dropped: [ConnectionID] = []
        for action in actions {
            switch action {
            case .wantWritable(let id): pinged.append(id)
            case .drop(let id): dropped.append(id)
            default: break
            }
        }
        return (pinged.sorted(), dropped.sorted())
    }

    private func sweep(_ harness: inout Harness, at now: Double) -> (pinged: [ConnectionID], dropped: [ConnectionID]) {
        harness.now = now
        harness.hub.sweepKeepalive(now: now, into: &harness.actions)
        return keepaliveActions(harness.take())
    }

    func testASilentPeerIsPingedEveryPeriodAndDroppedAtTheHangupTimeWhileOneThatAnswersStays() {
        var harness = Harness {
            $0.pingAfterSeconds = 10
            $0.hangupAfterSeconds = 30
        }
        harness.connectLive(1)
        harness.connectLive(2)
        _ = harness.take()
        XCTAssertTrue(sweep(&harness, at: 9.5) == ([], []), "nobody is idle yet")
        XCTAssertTrue(sweep(&harness, at: 10) == ([1, 2], []), "both idle for 10 s: pinged")
        for id: ConnectionID in [1, 2] {
            XCTAssertEqual(
                harness.hub.writable(id, nowMicros: 0, into: &harness.buffer, actions: &harness.actions), .write(frames: 1, more: false))
            XCTAssertEqual(harness.buffer, [0x89, 6] + Array("herald".utf8), "a ping, alone")
        }
        XCTAssertEqual(
            harness.hub.writable(1, nowMicros: 0, into: &harness.buffer, actions: &harness.actions), .idle, "one ping per period")
        XCTAssertTrue(sweep(&harness, at: 15) == ([], []), "a ping already asked for this period")
        harness.hub.heard(2, now: 16)  // connection 2 answered with a pong
        XCTAssertTrue(sweep(&harness, at: 20) == ([1], []), "the silent one again, the other not yet idle")
        harness.now = 21
        harness.send(2, #"{"type":"ping"}"#)  // a message counts as much as a pong
        _ = harness.take()
        XCTAssertTrue(sweep(&harness, at: 29.9) == ([], []))
        XCTAssertTrue(sweep(&harness, at: 30) == ([], [1]), "30 s without a word: dropped")
        XCTAssertEqual(harness.hub.metrics.silentPeerCloses, 1)
        XCTAssertTrue(sweep(&harness, at: 31) == ([2], []), "dropped once; the other idle 10 s since its message")
        harness.hub.closed(1, into: &harness.actions)
        XCTAssertEqual(harness.hub.connectionCount, 1)
    }

    /// A close the hub decided on waits for the connection's writable callback; one that never comes
    /// (a reader that stopped reading while bytes wait for its socket) ends in a drop after
    /// `closeGraceSeconds`, not at the keepalive's hang-up time. A close already handed to the
    /// transport is left to it.
    func testACloseThatCannotBeWrittenIsDroppedAfterTheGrace() {
        var harness = Harness {
            $0.pingAfterSeconds = 100
            $0.hangupAfterSeconds = 300
            $0.maxMessageBytes = 10
        }
        harness.connectLive(1)
        harness.connectLive(2)
        for id: ConnectionID in [1, 2] { harness.send(id, String(repeating: "a", count: 11)) }
        XCTAssertEqual(harness.written(2).end, .close(code: 1009, reason: "message over 10 bytes"))
        _ = harness.take()
        XCTAssertTrue(sweep(&harness, at: 1) == ([], []), "connection 1's close waits from now")
        XCTAssertTrue(sweep(&harness, at: 1 + StreamHub.closeGraceSeconds - 0.1) == ([], []))
        XCTAssertTrue(sweep(&harness, at: 1 + StreamHub.closeGraceSeconds) == ([], [1]), "dropped without it")
        XCTAssertTrue(sweep(&harness, at: 2 + StreamHub.closeGraceSeconds) == ([], []), "once; connection 2's close is the transport's")
        XCTAssertEqual(harness.hub.metrics.silentPeerCloses, 0)
    }

    func testThePingFollowsWholeFramesAndIsNotSentToAClosingConnection() {
        var harness = Harness {
            $0.pingAfterSeconds = 1
            $0.hangupAfterSeconds = 3
        }
        harness.connectLive(1)
        harness.connectLive(2)
        harness.deliver([event(1)])
        _ = harness.take()
        XCTAssertTrue(sweep(&harness, at: 1) == ([1, 2], []))
        guard case .write(let frames, _) = harness.hub.writable(1, nowMicros: 0, into: &harness.buffer, actions: &harness.actions) else {
            return XCTFail("a write")
        }
        XCTAssertEqual(frames, 2)
        XCTAssertEqual(Array(harness.buffer.suffix(8)), WebSocketFrame.ping, "after the event")
        XCTAssertEqual(Harness.payloads(Array(harness.buffer.dropLast(8))).count, 1, "the event, whole")
        harness.send(2, String(repeating: "x", count: harness.hub.configuration.maxMessageBytes + 1))
        XCTAssertEqual(
            harness.hub.writable(2, nowMicros: 0, into: &harness.buffer, actions: &harness.actions),
            .close(code: 1009, reason: "message over 65536 bytes"),
            "closing: no ping first")
    }
}
