import HeraldEngine
import HeraldTestSupport
import XCTest

final class NewsFeedTests: XCTestCase {
    func testAppendIsOneRevisionNewestFirst() {
        var feed = NewsFeed()
        XCTAssertEqual(feed.revision, 0)
        let first = feed.append(["a", "b"], at: 1000)
        XCTAssertEqual(feed.revision, 1)
        XCTAssertEqual(first.map(\.headline), ["b", "a"])
        XCTAssertEqual(first.map(\.id), ["n1-2", "n1-1"])
        XCTAssertEqual(first.map(\.time), [1000, 1000])
        let second = feed.append(["c"], at: 2000)
        XCTAssertEqual(feed.revision, 2)
        XCTAssertEqual(second.map(\.id), ["n2-1"])
        XCTAssertEqual(feed.items.map(\.headline), ["c", "b", "a"])
        XCTAssertEqual(Set(feed.items.map(\.id)).count, 3, "ids are unique")
    }

    func testNothingNewIsNoRevision() {
        var feed = NewsFeed()
        XCTAssertEqual(feed.append([], at: 1), [])
        XCTAssertEqual(feed.revision, 0)
        XCTAssertTrue(feed.items.isEmpty)
    }

    func testOldItemsFallOffTheEnd() {
        var feed = NewsFeed(capacity: 3)
        _ = feed.append(["1", "2"], at: 1)
        _ = feed.append(["3", "4"], at: 2)
        XCTAssertEqual(feed.items.map(\.headline), ["4", "3", "2"])
        let added = feed.append(["5", "6", "7", "8"], at: 3)
        XCTAssertEqual(added.count, 4, "the event still carries everything that was added")
        XCTAssertEqual(feed.items.map(\.headline), ["8", "7", "6"])
        XCTAssertEqual(feed.revision, 3)
    }

    func testJSON() {
        var feed = NewsFeed()
        _ = feed.append(["Build farm ships record throughput"], at: 1_796_000_000_000)
        XCTAssertEqual(
            JSONWriter.string(feed.json),
            #"{"revision":1,"items":[{"id":"n1-1","time":1796000000000,"headline":"Build farm ships record throughput"}]}"#)
    }

    func testSeededSourceIsRepeatable() {
        let one = NewsSource(probability: 1, seed: 42)
        let two = NewsSource(probability: 1, seed: 42)
        let fetchesOne = (0..<20).map { _ in one.fetch() }
        let fetchesTwo = (0..<20).map { _ in two.fetch() }
        XCTAssertEqual(fetchesOne, fetchesTwo)
        for headlines in fetchesOne {
            XCTAssertTrue((1...3).contains(headlines.count), "probability 1 always finds 1 to 3 headlines")
            for headline in headlines { XCTAssertEqual(headline.split(separator: " ").count >= 3, true, headline) }
        }
        let other = (0..<20).map { _ in NewsSource(probability: 1, seed: 43).fetch() }
        XCTAssertNotEqual(other, fetchesOne, "another seed gives other news")
    }

    func testProbabilityBounds() {
        let never = NewsSource(probability: 0, seed: 1)
        XCTAssertTrue((0..<100).allSatisfy { _ in never.fetch().isEmpty })
        XCTAssertEqual(NewsSource(probability: 7).probability, 1)
        XCTAssertEqual(NewsSource(probability: -1).probability, 0)
        let half = NewsSource(probability: 0.5, seed: 9)
        let found = (0..<1000).filter { _ in !half.fetch().isEmpty }.count
        XCTAssertTrue((350...650).contains(found), "about half the fetches find news: \(found)")
    }

    func testSeededGeneratorIsUniform01() {
        var generator = SeededGenerator(seed: 7)
        var again = SeededGenerator(seed: 7)
        for _ in 0..<1000 {
            let value = generator.nextDouble()
            XCTAssertTrue(value >= 0 && value < 1)
            XCTAssertEqual(value, again.nextDouble())
        }
    }
}
