import HeraldEngine
import HeraldTestSupport
import XCTest

final class WorkerPoolTests: XCTestCase {
    private let gpu = WorkerSession(1)
    private let farm = WorkerSession(2)

    private func pool() -> WorkerPool {
        var pool = WorkerPool()
        pool.attach(gpu, WorkerHello(name: "gpu-1", kinds: ["encode"], slots: 2), now: 0)
        pool.attach(farm, WorkerHello(name: "farm", kinds: ["encode", "build"], slots: 1), now: 0)
        return pool
    }

    func testPicksTheLeastBusyWorkerThatRunsTheKindAndHasASlot() {
        var pool = pool()
        XCTAssertEqual(pool.pick(JobKind("build")), farm)
        XCTAssertNil(pool.pick(JobKind("render")))
        XCTAssertEqual(pool.pick(JobKind("encode")), gpu, "equally idle: the one attached first")
        pool.assign(JobID("j-a"), attempt: 1, to: gpu)
        XCTAssertEqual(pool.pick(JobKind("encode")), farm, "gpu-1 is busier now")
        pool.assign(JobID("j-b"), attempt: 1, to: farm)
        XCTAssertEqual(pool.pick(JobKind("encode")), gpu, "farm's one slot is taken")
        pool.assign(JobID("j-c"), attempt: 1, to: gpu)
        XCTAssertNil(pool.pick(JobKind("encode")), "every slot is taken")
        pool.release(JobID("j-b"))
        XCTAssertEqual(pool.pick(JobKind("encode")), farm)
        XCTAssertEqual(pool.infos.map(\.busy), [2, 0])
    }

    func testADrainingWorkerTakesNothingNew() {
        var pool = pool()
        pool.drain(farm)
        XCTAssertNil(pool.pick(JobKind("build")))
        XCTAssertTrue(pool.serves(JobKind("build")), "it still runs the kind: its jobs go on")
        XCTAssertEqual(pool.infos.map(\.draining), [false, true])
    }

    func testOnlyTheHolderOfTheCurrentAttemptIsHeard() {
        var pool = pool()
        pool.assign(JobID("j-a"), attempt: 3, to: gpu)
        XCTAssertTrue(pool.holds(gpu, job: JobID("j-a"), attempt: 3))
        XCTAssertFalse(pool.holds(gpu, job: JobID("j-a"), attempt: 2), "an older attempt")
        XCTAssertFalse(pool.holds(farm, job: JobID("j-a"), attempt: 3), "another worker")
        XCTAssertFalse(pool.holds(gpu, job: JobID("j-b"), attempt: 1), "a job never assigned")
        pool.release(JobID("j-a"))
        XCTAssertFalse(pool.holds(gpu, job: JobID("j-a"), attempt: 3), "an attempt that ended")
    }

    func testLeasesRunOutForSilentWorkersOnly() {
        var pool = pool()
        pool.heard(farm, now: 20)
        XCTAssertEqual(pool.expired(now: 29.9, lease: 30), [])
        XCTAssertEqual(pool.expired(now: 30, lease: 30), [gpu])
        XCTAssertEqual(pool.expired(now: 50, lease: 30), [gpu, farm])
    }

    func testDetachReturnsTheAttemptsItHeldAndFreesThem() {
        var pool = pool()
        pool.assign(JobID("j-b"), attempt: 2, to: gpu)
        pool.assign(JobID("j-a"), attempt: 1, to: gpu)
        pool.assign(JobID("j-c"), attempt: 1, to: farm)
        let lost = pool.detach(gpu)
        XCTAssertEqual(lost.map(\.job), [JobID("j-a"), JobID("j-b")])
        XCTAssertEqual(lost.map(\.attempt), [1, 2])
        XCTAssertNil(pool.holder(of: JobID("j-a")))
        XCTAssertEqual(pool.holder(of: JobID("j-c"))?.session, farm)
        XCTAssertEqual(pool.heldCount, 1)
        XCTAssertEqual(pool.detach(gpu).count, 0, "a second detach finds nothing")
        XCTAssertEqual(pool.infos.map(\.name), ["farm"])
    }
}
