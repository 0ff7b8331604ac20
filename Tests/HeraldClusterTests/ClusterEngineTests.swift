import Foundation
import HeraldCluster
import HeraldEngine
import HeraldRedis
import HeraldTestSupport
import XCTest

/// Two cluster nodes in one process on one real redis-server: their threads (dispatchers, publishers,
/// tails, view and command queues) run for real, so this suite is what ThreadSanitizer checks of the
/// cluster. The black-box suite (Tests/blackbox/test_cluster.py) runs three real processes.
final class ClusterEngineTests: XCTestCase {
    /// Jobs that count to `steps` (default 20), a few milliseconds a step, until cancelled.
    struct SteppingRunner: JobRunner {
        let kind = JobKind("step")

        func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject {
            ["steps": .int(params["steps"]?.intValue ?? 20)]
        }

        func run(_ context: JobContext) throws -> JSONObject {
            let steps = context.params["steps"]?.intValue ?? 20
            for step in 1...max(1, steps) {
                try context.checkCancelled()
                context.progress.report(completed: step, total: steps)
                usleep(3_000)
            }
            return ["steps": .int(steps)]
        }
    }

    /// Everything a node hands its subscribers, and whether its stream was reset.
    final class Recorder: Sendable {
        let frames = Locked<[[UInt8]]>([])
        let events = Locked<[SequencedEvent]>([])
        let resets = Locked(0)

        func ended(_ job: JobID) -> JobRecord? {
            events.value.lazy.compactMap { event -> JobRecord? in
                if case .job(let record) = event.event, record.id == job, record.state.isTerminal { return record }
                return nil
            }.first
        }
    }

    struct Refused: Error {
        let reply: String
    }

    private var nodes: [ClusterEngine] = []
    private var folders: [URL] = []

    override func tearDown() {
        for node in nodes {
            node.local.shutdown(grace: 0)
            node.close()
        }
        for folder in folders { try? FileManager.default.removeItem(at: folder) }
        super.tearDown()
    }

    private func node(
        _ name: String, on redis: RedisServerProcess, workers: Int = 4, configure: (inout ClusterSettings) -> Void = { _ in }
    ) throws -> (ClusterEngine, Recorder) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-cluster-\(UUID().uuidString)")
        folders.append(folder)
        var configuration = EngineConfiguration(workers: workers)
        configuration.nodeName = name
        let environment = JobEnvironment(searchRoot: folder, dataDirectory: folder, newsSource: NewsSource())
        let local = JobDispatcher(configuration: configuration, environment: environment, runners: [SteppingRunner()])
        var settings = ClusterSettings(address: redis.address, node: name)
        configure(&settings)
        let engine = ClusterEngine(local: local, settings: settings) { _ in }
        try engine.start()
        nodes.append(engine)
        let recorder = Recorder()
        _ = engine.subscribe { events in
            recorder.events.withLock { $0.append(contentsOf: events) }
            recorder.frames.withLock { $0.append(contentsOf: events.map(\.json)) }
        }
        engine.onStreamReset { recorder.resets.withLock { $0 += 1 } }
        return (engine, recorder)
    }

    private func ask(_ engine: ClusterEngine, _ request: EngineRequest) -> EngineReply {
        let answer = Locked<EngineReply?>(nil)
        engine.send(request) { reply in answer.withLock { $0 = reply } }
        XCTAssertTrue(poll(timeout: 30) { answer.value != nil }, "\(request) was answered")
        return answer.value!
    }

    private func start(_ engine: ClusterEngine, steps: Int64 = 20, requestId: String? = nil) throws -> JobRecord {
        let reply = ask(engine, .start(StartRequest(kind: "step", params: ["steps": .int(steps)], requestId: requestId)))
        guard case .job(.success(let record)) = reply else { throw Refused(reply: "\(reply)") }
        return record
    }

    func testTwoNodesHandTheirViewersTheSameBytes() throws {
        let redis = try RedisServerProcess()
        let (first, firstSeen) = try node("a", on: redis)
        let (second, secondSeen) = try node("b", on: redis)
        let jobs = try [start(first), start(second), start(first)]
        for job in jobs {
            XCTAssertTrue(poll(timeout: 30) { firstSeen.ended(job.id) != nil && secondSeen.ended(job.id) != nil }, "\(job.id) ended")
        }
        XCTAssertEqual(jobs.map(\.node), [nil, nil, nil], "queued for whichever node has room")
        let ran = jobs.map { secondSeen.ended($0.id)?.node }
        XCTAssertTrue(ran.allSatisfy { $0 == "a" || $0 == "b" }, "\(ran)")
        let frames = (firstSeen.frames.value, secondSeen.frames.value)
        XCTAssertGreaterThan(frames.0.count, 3 * 3, "states and progress of three jobs")
        XCTAssertEqual(frames.0, frames.1, "the same events, byte for byte, in the same order")
        let seqs = firstSeen.events.value.map(\.seq)
        XCTAssertEqual(seqs, Array(1...Int64(seqs.count)), "one gapless order")
        guard case .snapshot(let snapshot) = ask(second, .snapshot) else { return XCTFail("a snapshot") }
        XCTAssertEqual(snapshot.jobs.map(\.id), jobs.map(\.id))
        XCTAssertEqual(snapshot.epoch, first.epoch)
    }

    /// The record of `job` once it runs, and so has a node.
    private func running(_ job: JobID, in recorder: Recorder) -> JobRecord? {
        var found: JobRecord?
        XCTAssertTrue(
            poll(timeout: 30) {
                found =
                    recorder.events.value.lazy.compactMap { event -> JobRecord? in
                        if case .job(let record) = event.event, record.id == job, record.state == .running { return record }
                        return nil
                    }.first
                return found != nil
            }, "\(job) runs")
        return found
    }

    func testACancelOnOneNodeEndsTheJobOnTheOther() throws {
        let redis = try RedisServerProcess()
        let (first, firstSeen) = try node("a", on: redis)
        let (second, secondSeen) = try node("b", on: redis)
        let job = try start(first, steps: 100_000)
        let runner = running(job.id, in: firstSeen)?.node
        let (canceller, runs) = runner == "a" ? (second, first) : (first, second)
        guard case .job(.success) = ask(canceller, .cancel(job.id.rawValue)) else { return XCTFail("the cancel was taken") }
        XCTAssertTrue(poll(timeout: 30) { firstSeen.ended(job.id) != nil && secondSeen.ended(job.id) != nil })
        XCTAssertEqual(secondSeen.ended(job.id)?.state, .cancelled)
        XCTAssertEqual(runs.local.job(job.id.rawValue)?.state, .cancelled, "it ended where it ran")
    }

    func testJobsRunWhereThereIsRoomAndWaitingOnesCanBeCancelled() throws {
        let redis = try RedisServerProcess()
        let (first, firstSeen) = try node("a", on: redis, workers: 1)
        let (_, secondSeen) = try node("b", on: redis, workers: 1)
        // Two long jobs fill both nodes, whichever node each was started on.
        let long = try [start(first, steps: 100_000), start(first, steps: 100_000)]
        let nodes = Set(long.compactMap { running($0.id, in: secondSeen)?.node })
        XCTAssertEqual(nodes, ["a", "b"], "the second went to the node with room")
        // A third waits in the cluster's queue, owned by nobody, and can be cancelled there.
        let waiting = try start(first, steps: 5)
        guard case .job(.success(let cancelled)) = ask(first, .cancel(waiting.id.rawValue)) else { return XCTFail("cancelled") }
        XCTAssertEqual(cancelled.state, .cancelled)
        XCTAssertTrue(poll(timeout: 30) { secondSeen.ended(waiting.id) != nil })
        XCTAssertNil(secondSeen.ended(waiting.id)?.node, "it never ran")
        // A fourth runs as soon as a slot frees.
        let next = try start(first, steps: 5)
        guard case .job(.success) = ask(first, .cancel(long[0].id.rawValue)) else { return XCTFail("the long job cancelled") }
        XCTAssertTrue(poll(timeout: 30) { firstSeen.ended(next.id)?.state == .succeeded }, "the freed node took it")
    }

    func testASnapshotAskedRightAfterAStartReachesSubscribersAfterTheEventsItCovers() throws {
        let redis = try RedisServerProcess()
        let (first, _) = try node("a", on: redis)
        // What a hub would see, in the order it would see it: event batches and snapshot answers.
        let timeline = Locked<[(snapshot: Bool, seqs: [Int64])]>([])
        _ = first.subscribe { events in timeline.withLock { $0.append((false, events.map(\.seq))) } }
        for _ in 0..<10 {
            _ = try start(first, steps: 1)
            // Asked at once: the view has not read the job's `queued` event back yet, so the answer
            // waits for it (the path where the view answers while it applies entries).
            let answered = Locked(false)
            first.send(.snapshot) { reply in
                if case .snapshot(let snapshot) = reply { timeline.withLock { $0.append((true, [snapshot.seq])) } }
                answered.withLock { $0 = true }
            }
            XCTAssertTrue(poll(timeout: 30) { answered.value }, "the snapshot was answered")
        }
        var covered: Int64 = -1
        for entry in timeline.value {
            if entry.snapshot {
                covered = max(covered, entry.seqs[0])
            } else {
                XCTAssertTrue(entry.seqs.allSatisfy { $0 > covered }, "events \(entry.seqs) came after a snapshot at seq \(covered)")
            }
        }
    }

    func testOnlyTheNewestRequestIdsAreRememberedAndARepeatedOneMakesNoSecondJob() throws {
        let redis = try RedisServerProcess()
        let (first, _) = try node("a", on: redis) { $0.requestIdsKept = 3 }
        let jobs = try (1...5).map { try start(first, steps: 1, requestId: "r\($0)") }
        XCTAssertEqual(try start(first, steps: 1, requestId: "r5").id, jobs[4].id, "a start sent again answers with its job")
        let admin = try RedisConnection(address: redis.address)
        let keys = ClusterKeys()
        XCTAssertEqual(try admin.command("ZCARD", keys.requests).integer, 3)
        XCTAssertEqual(try admin.command("EXISTS", keys.request("r1"), keys.request("r2")).integer, 0, "the oldest are forgotten")
        XCTAssertEqual(try admin.command("EXISTS", keys.request("r3"), keys.request("r4"), keys.request("r5")).integer, 3)
        // A start with dependencies is admitted by another script, under the same bound.
        let dependent = ask(first, .start(StartRequest(kind: "step", after: [jobs[0].id.rawValue], requestId: "r6")))
        guard case .job(.success) = dependent else { return XCTFail("a start with dependencies: \(dependent)") }
        XCTAssertEqual(try admin.command("ZCARD", keys.requests).integer, 3)
        XCTAssertEqual(try admin.command("EXISTS", keys.request("r3")).integer, 0)
        XCTAssertEqual(try admin.command("EXISTS", keys.request("r6")).integer, 1)
    }

    func testRedisLosingItsDataResetsEveryNodesStream() throws {
        let redis = try RedisServerProcess()
        let (first, firstSeen) = try node("a", on: redis)
        let (second, secondSeen) = try node("b", on: redis)
        let before = first.epoch
        let job = try start(first)
        XCTAssertTrue(poll(timeout: 30) { secondSeen.ended(job.id) != nil })
        let admin = try RedisConnection(address: redis.address)
        XCTAssertEqual(try admin.command("FLUSHALL"), .status("OK"))
        XCTAssertTrue(poll(timeout: 30) { firstSeen.resets.value >= 1 && secondSeen.resets.value >= 1 }, "every node resets")
        XCTAssertTrue(poll(timeout: 30) { first.epoch != before && first.epoch == second.epoch }, "one new epoch")
        let after = try start(second)
        XCTAssertTrue(poll(timeout: 30) { firstSeen.ended(after.id) != nil }, "jobs started afterwards work")
    }

    /// Redis restarted empty: a start sent as soon as the node's viewers get the new epoch's snapshot
    /// is taken, not refused `unavailable` while the node's other connections wait out their backoff.
    func testAStartSentOnTheNewEpochsSnapshotIsTakenAfterRedisRestartsEmpty() throws {
        let redis = try RedisServerProcess()
        let (first, seen) = try node("a", on: redis)
        let before = first.epoch
        redis.stop()
        let stopped = Date()
        XCTAssertTrue(poll(timeout: 30) { (try? start(first, steps: 1)) == nil }, "starts are refused while Redis is away")
        // Away five seconds, as in a restart: each connection's reconnect backoff has grown to its
        // longest wait, so on its own each would come back at a different moment.
        Thread.sleep(forTimeInterval: max(0, 5 - Date().timeIntervalSince(stopped)))
        try redis.restart()
        XCTAssertTrue(poll(timeout: 30) { seen.resets.value >= 1 }, "the node's viewers get a snapshot")
        XCTAssertNotEqual(first.epoch, before, "of a new epoch")
        XCTAssertNoThrow(try start(first, steps: 1), "a start sent on that snapshot is taken")
    }
}
