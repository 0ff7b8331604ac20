import HeraldEngine
import XCTest

/// `EngineConfiguration.keptResultBytes`: finished jobs that keep results are forgotten, oldest
/// first, while those results weigh more than the bound; jobs that keep none are left alone.
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

    func testOldestSearchIsForgottenWhenTheKeptMatchesOutweighTheBound() throws {
        let fixture = fixture(keptResultBytes: 100)
        let firstFetch = try fixture.run(.fetch, [:])
        let first = try fixture.run(.search, ["query": "needle"])
        XCTAssertEqual(total(fixture, first), 10, "the newest search keeps its matches even alone over the bound")
        let secondFetch = try fixture.run(.fetch, [:])
        let second = try fixture.run(.search, ["query": "needle"])

        XCTAssertNil(fixture.dispatcher.job(first.id.rawValue), "over the bound: the older search is forgotten")
        XCTAssertEqual(fixture.dispatcher.page(job: first.id.rawValue, offset: 0, limit: 100).error?.code, .notFound)
        XCTAssertEqual(total(fixture, second), 10)
        XCTAssertNotNil(fixture.dispatcher.job(firstFetch.id.rawValue), "a job that keeps no results is not forgotten for weight")
        XCTAssertNotNil(fixture.dispatcher.job(secondFetch.id.rawValue))
    }

    func testSearchesUnderTheBoundAreAllKept() throws {
        let fixture = fixture(keptResultBytes: 1 << 20)
        let first = try fixture.run(.search, ["query": "needle"])
        let second = try fixture.run(.search, ["query": "needle"])
        XCTAssertEqual(total(fixture, first), 10)
        XCTAssertEqual(total(fixture, second), 10)
    }
}
