import Foundation
import HeraldEngine
import XCTest

/// Uncoalesced (benchmark) progress waits for delivery: a high backlog refuses it, a low one lets it through.
final class DeliveryBacklogTests: XCTestCase {
    /// Tries one uncoalesced progress value and records whether the dispatcher took it.
    private final class OneShotRunner: JobRunner, @unchecked Sendable {
        // @unchecked Sendable: `accepted` is written once by the worker and read after the job ended.
        let kind = JobKind.ticker
        var accepted: Bool?
        func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject { params }
        func run(_ context: JobContext) throws -> JSONObject {
            accepted = context.emitProgressNow(JobProgress(completed: 1, total: 1))
            return [:]
        }
    }

    private func run(backlog: Int) throws -> Bool? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-backlog-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let runner = OneShotRunner()
        let engine = JobDispatcher(
            configuration: EngineConfiguration(enableTicker: true),
            environment: JobEnvironment(searchRoot: FileManager.default.temporaryDirectory, dataDirectory: folder, newsSource: NewsSource()),
            runners: [runner])
        engine.deliveryBacklog.add(backlog)
        let id = try engine.start(StartRequest(kind: "ticker")).get().id.rawValue
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline, engine.job(id)?.state.isTerminal != true { usleep(1000) }
        XCTAssertEqual(engine.job(id)?.state, .succeeded)
        return runner.accepted
    }

    func testHighBacklogRefusesAndLowBacklogAccepts() throws {
        XCTAssertEqual(try run(backlog: 1_000_000), false)
        XCTAssertEqual(try run(backlog: 0), true)
    }
}
