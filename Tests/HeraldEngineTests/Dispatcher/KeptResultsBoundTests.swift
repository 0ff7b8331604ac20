import HeraldEngine
import HeraldTestSupport
import XCTest

/// `EngineConfiguration.keptResultBytes`: finished jobs' results are dropped, oldest first, while
/// they weigh more than the bound; the jobs themselves stay in memory and in snapshots.
final class KeptResultsBoundTests: XCTestCase {
    private func fixture(keptResultBytes: Int) -> DispatcherFixture {
        var configuration = runnerConfiguration()
        configuration.keptResultBytes = keptResultBytes
        let fixture = makeFixture(configuration)
        // Ten matches of about 50 bytes each (as JSON): about 500 bytes per search.
        fixture.write("n.txt", (0..<10).map { "needle \($0)\n" }.joined())
        return fixture
    }

    private func total(_ fixture: DispatcherFixture, _ job: JobRecord) -> Int? {
        fixture.dispatcher.page(job: job.id.rawValue, offset: 0, limit: 100).value?.total
    }

    func testOldestSearchDropsItsMatchesButStaysWhenTheKeptMatchesOutweighTheBound() throws {
        let fixture = fixture(keptResultBytes: 100)
        let firstFetch = try fixture.run(.fetch, [:])
        let first = try fixture.run(.search, ["query": "needle"])
        XCTAssertEqual(total(fixture, first), 10, "the newest search keeps its matches even alone over the bound")
        let secondFetch = try fixture.run(.fetch, [:])
        let second = try fixture.run(.search, ["query": "needle"])

        XCTAssertEqual(fixture.dispatcher.job(first.id.rawValue), first, "over the bound: the older search stays, as it ended")
        XCTAssertTrue(fixture.dispatcher.snapshot().jobs.contains(first), "and in a new viewer's snapshot")
        let gone = fixture.dispatcher.page(job: first.id.rawValue, offset: 0, limit: 100).error
        XCTAssertEqual(gone?.code, .gone, "its matches were dropped, and a page says so")
        XCTAssertTrue(gone?.message.contains("--kept-results-bytes") == true, gone?.message ?? "")
        XCTAssertEqual(total(fixture, second), 10)
        XCTAssertNotNil(fixture.dispatcher.job(firstFetch.id.rawValue))
        XCTAssertNotNil(fixture.dispatcher.job(secondFetch.id.rawValue))
    }

    func testManySearchesOverTheBoundAllStayInTheSnapshot() throws {
        var configuration = runnerConfiguration()
        configuration.keptResultBytes = 100
        configuration.retainedFinishedJobs = 50
        let fixture = makeFixture(configuration)
        fixture.write("n.txt", (0..<10).map { "needle \($0)\n" }.joined())
        let searches = try (0..<8).map { _ in try fixture.run(.search, ["query": "needle"]) }
        XCTAssertEqual(Set(fixture.dispatcher.snapshot().jobs.map(\.id)), Set(searches.map(\.id)), "the bound is on matches, not jobs")
        let codes = searches.map { fixture.dispatcher.page(job: $0.id.rawValue, offset: 0, limit: 100).error?.code }
        XCTAssertEqual(codes, Array(repeating: ErrorCode.gone, count: 7) + [nil], "only the newest keeps its matches")
    }

    func testSearchesUnderTheBoundAreAllKept() throws {
        let fixture = fixture(keptResultBytes: 1 << 20)
        let first = try fixture.run(.search, ["query": "needle"])
        let second = try fixture.run(.search, ["query": "needle"])
        XCTAssertEqual(total(fixture, first), 10)
        XCTAssertEqual(total(fixture, second), 10)
    }
}
