import Foundation
import HeraldEngine
import HeraldTestSupport
import XCTest

final class FetchRunnerTests: XCTestCase {
    func testFetchWithCertainNewsPublishesTheHeadlines() throws {
        let fixture = makeFixture(runnerConfiguration(), newsSource: NewsSource(probability: 1, seed: 42))
        let job = try fixture.run(.fetch, [:])
        XCTAssertEqual(job.state, .succeeded, job.error ?? "")
        // The same seed gives the same answer: what the job must have published.
        let expected = NewsSource(probability: 1, seed: 42).fetch()
        XCTAssertEqual(job.summary, ["newItems": .int(Int64(expected.count))])
        let news = fixture.recorder.newsEvents
        XCTAssertEqual(news.count, 1)
        XCTAssertEqual(news.first?.revision, 1)
        XCTAssertEqual(Set(news.first?.items.map(\.headline) ?? []), Set(expected))
        XCTAssertEqual(fixture.dispatcher.newsFeed().revision, 1)
        XCTAssertEqual(fixture.dispatcher.newsFeed().items.count, expected.count)
        XCTAssertEqual(fixture.recorder.progress(of: job.id).last.map { [$0.completed, $0.total] }, [1, 1])
    }

    func testFetchWithNoNewsPublishesNothing() throws {
        let fixture = makeFixture(runnerConfiguration(), newsSource: NewsSource(probability: 0, seed: 42))
        let job = try fixture.run(.fetch, ["background": true])
        XCTAssertEqual(job.summary, ["newItems": 0])
        XCTAssertTrue(fixture.recorder.newsEvents.isEmpty)
        XCTAssertEqual(fixture.dispatcher.newsFeed().revision, 0)
    }

    func testParamsAreValidated() throws {
        let fixture = makeFixture(runnerConfiguration())
        XCTAssertEqual(try fixture.start(.fetch, [:]).get().params, ["background": false])
        XCTAssertEqual(fixture.refusal(.fetch, ["background": "yes"])?.message.hasPrefix("background: "), true)
        XCTAssertEqual(fixture.refusal(.fetch, ["url": "http://example.com"])?.code, .badRequest)
    }
}
