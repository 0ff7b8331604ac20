import Foundation
import HeraldEngine
import HeraldTestSupport
import XCTest

/// `shutdown` waits for every running job, for every caller, before history is written.
final class ShutdownOrderTests: XCTestCase {
    /// A job that notices a cancel only when the test lets it, then ends `cancelled`.
    private struct StubbornRunner: JobRunner {
        let kind = JobKind.sort
        let release: DispatchSemaphore
        let running: DispatchSemaphore

        func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject { params }

        func run(_ context: JobContext) throws -> JSONObject {
            running.signal()
            release.wait()
            try context.checkCancelled()
            return [:]
        }
    }

    func testEveryShutdownWaitsForTheRunningJobAndHistoryHoldsItsEnd() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-shutdown-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let release = DispatchSemaphore(value: 0)
        let running = DispatchSemaphore(value: 0)
        let environment = JobEnvironment(searchRoot: folder, dataDirectory: folder, newsSource: NewsSource(probability: 0, seed: 1))
        let history = HistoryStore(directory: folder)
        let dispatcher = JobDispatcher(
            environment: environment, runners: [StubbornRunner(release: release, running: running)], history: history)
        let job = try dispatcher.start(StartRequest(kind: "sort")).get()
        XCTAssertEqual(running.wait(timeout: .now() + 10), .success, "the job started")

        let returned = Protected(0)
        let bothReturned = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: bothReturned) {
                dispatcher.shutdown(grace: 0)
                returned.withLock { $0 += 1 }
            }
        }
        // Neither call may return while the job still runs: give them every chance to (they would
        // return at once if they did not wait), then release the job.
        XCTAssertEqual(bothReturned.wait(timeout: .now() + 0.5), .timedOut, "a shutdown returned while the job ran")
        XCTAssertEqual(returned.withLock { $0 }, 0)
        release.signal()
        XCTAssertEqual(bothReturned.wait(timeout: .now() + 10), .success, "both returned once the job ended")
        XCTAssertEqual(dispatcher.job(job.id.rawValue)?.state, .cancelled)
        let written = HistoryStore(directory: folder).load().first { $0.id == job.id }
        XCTAssertEqual(written?.state, .cancelled, "history holds the job's end, written after it ended")
    }
}
