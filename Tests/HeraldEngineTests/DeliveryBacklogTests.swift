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
        let runner = OneShotRunner()
        let fixture = makeFixture(EngineConfiguration(enableTicker: true), runners: [runner])
        let engine = fixture.dispatcher
        engine.deliveryBacklog.add(backlog)
        let id = try engine.start(StartRequest(kind: "ticker")).get().id
        fixture.recorder.waitForTerminal(id)
        XCTAssertEqual(engine.job(id.rawValue)?.state, .succeeded)
        return runner.accepted
    }

    func testHighBacklogRefusesAndLowBacklogAccepts() throws {
        XCTAssertEqual(try run(backlog: 1_000_000), false)
        XCTAssertEqual(try run(backlog: 0), true)
    }
}
