import Foundation
import HeraldAccess
@testable import HeraldCluster
import HeraldEngine
import HeraldRedis
import HeraldTestSupport
import XCTest

/// The cluster's shared audit on a real redis-server: what two nodes append, either reads back the
/// same, newest first with its node; the stream stays near its cap; with Redis away, appending
/// does not wait and reading fails (the route then answers from the node's own file).
final class ClusterAuditTests: XCTestCase {
    struct Idle: JobRunner {
        let kind = JobKind("idle")
        func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject { [:] }
        func run(_ context: JobContext) throws -> JSONObject { [:] }
    }

    private var nodes: [ClusterEngine] = []
    private var folders: [URL] = []
    private let ann = Principal(name: "ann", role: .operator, source: .key(name: "ann"))

    override func tearDown() {
        for node in nodes {
            node.local.shutdown(grace: 0)
            node.close()
        }
        for folder in folders { try? FileManager.default.removeItem(at: folder) }
        super.tearDown()
    }

    private func node(_ name: String, on redis: RedisServerProcess, auditLength: Int = 100_000) throws -> ClusterEngine {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-audit-\(UUID().uuidString)")
        folders.append(folder)
        var configuration = EngineConfiguration(workers: 1)
        configuration.nodeName = name
        let environment = JobEnvironment(searchRoot: folder, dataDirectory: folder, newsSource: NewsSource())
        let local = JobDispatcher(configuration: configuration, environment: environment, runners: [Idle()])
        var settings = ClusterSettings(address: redis.address, node: name)
        settings.auditLength = auditLength
        let engine = ClusterEngine(local: local, settings: settings) { _ in }
        try engine.start()
        nodes.append(engine)
        return engine
    }

    private func event(_ index: Int) -> AuditEvent {
        .start(by: ann, job: "j-\(index)", kind: "idle", address: nil, at: 1_765_000_000_000 + Int64(index))
    }

    private func page(_ node: ClusterEngine, limit: Int, before: AuditStreamID? = nil) -> Result<SharedAuditPage, EngineError>? {
        let answer = Locked<Result<SharedAuditPage, EngineError>?>(nil)
        node.auditPage(limit: limit, before: before) { result in answer.withLock { $0 = result } }
        XCTAssertTrue(poll(timeout: 30) { answer.value != nil }, "the page was answered")
        return answer.value
    }

    func testWhatTwoNodesAppendEitherReadsBackTheSameNewestFirstWithItsNode() throws {
        let redis = try RedisServerProcess()
        defer { redis.stop() }
        let one = try node("n1", on: redis)
        let two = try node("n2", on: redis)
        one.appendAudit(event(1))
        waitUntil("n1's event in Redis", seen: { "\(String(describing: page(one, limit: 10)))" }) {
            (try? page(two, limit: 10)?.get().entries.count) == 1
        }
        two.appendAudit(event(2))
        // The shared audit is in the order Redis took the events: n2's first, then n1's.
        waitUntil("n2's event in Redis", seen: { "\(String(describing: page(one, limit: 10)))" }) {
            (try? page(one, limit: 10)?.get().entries.count) == 2
        }
        one.appendAudit(event(3))
        var all: SharedAuditPage?
        waitUntil("three events in the shared audit", seen: { "\(String(describing: all))" }) {
            all = try? page(one, limit: 10)?.get()
            return all?.entries.count == 3
        }
        let fromOne = try XCTUnwrap(all)
        XCTAssertEqual(fromOne.entries.map(\.event.job), ["j-3", "j-2", "j-1"])
        XCTAssertEqual(fromOne.entries.map(\.node), ["n1", "n2", "n1"])
        XCTAssertNil(fromOne.next)
        XCTAssertEqual(try page(two, limit: 10)?.get(), fromOne, "either node reads the same")
        // Page by page, with the cursor the first page gives.
        let first = try XCTUnwrap(page(two, limit: 2)?.get())
        XCTAssertEqual(first.entries.map(\.event.job), ["j-3", "j-2"])
        let rest = try XCTUnwrap(page(one, limit: 2, before: XCTUnwrap(first.next))?.get())
        XCTAssertEqual(rest.entries.map(\.event.job), ["j-1"])
        XCTAssertNil(rest.next)
    }

    func testTheStreamIsTrimmedNearItsCap() throws {
        let redis = try RedisServerProcess()
        defer { redis.stop() }
        let one = try node("n1", on: redis, auditLength: 10)
        for index in 0..<500 { one.appendAudit(event(index)) }
        waitUntil("the last event in Redis", seen: { "" }) {
            (try? page(one, limit: 1)?.get().entries.first?.event.job) == "j-499"
        }
        let connection = try RedisConnection(address: redis.address)
        defer { connection.close() }
        let length = try XCTUnwrap(connection.command("XLEN", ClusterKeys().audit).integer)
        // `MAXLEN ~` trims whole nodes of the stream (100 entries each by default): near, never all.
        XCTAssertLessThan(length, 500)
        XCTAssertGreaterThanOrEqual(length, 10)
    }

    func testWithRedisAwayAppendingDoesNotWaitAndReadingFails() throws {
        let redis = try RedisServerProcess()
        let one = try node("n1", on: redis)
        redis.stop()
        waitUntil("the node to notice Redis is away", seen: { "" }) {
            if case .failure? = page(one, limit: 1) { return true }
            return false
        }
        // The queue that talks to Redis is held while the events are appended: an append that
        // waited for it, or for Redis through it, would not finish until it is let go.
        let holding = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        one.commandQueue.async {
            held.signal()
            holding.wait()
        }
        held.wait()
        let events = (0..<ClusterEngine.auditBacklogLimit + 5).map(event)
        let appended = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for event in events { one.appendAudit(event) }
            appended.signal()
        }
        // A backstop, not a measure: appending is a lock and an array append.
        let finished = appended.wait(timeout: .now() + 120) == .success
        holding.signal()
        XCTAssertTrue(finished, "appending finished while the Redis queue was held")
        if !finished { appended.wait() }
        var statistics: ClusterStatistics?
        waitUntil("the dropped events counted", seen: { "\(String(describing: statistics))" }) {
            let answer = Locked<EngineReply?>(nil)
            one.send(.statistics) { reply in answer.withLock { $0 = reply } }
            _ = poll(timeout: 10) { answer.value != nil }
            if case .statistics(let figures)? = answer.value { statistics = figures.cluster }
            return statistics?.auditDropped == 5
        }
        XCTAssertEqual(statistics?.auditBacklog, ClusterEngine.auditBacklogLimit)
    }
}
