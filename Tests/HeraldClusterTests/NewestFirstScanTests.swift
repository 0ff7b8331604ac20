import XCTest

@testable import HeraldCluster

/// A scan of a sorted set newest first lists each member once, in Redis's order, while other nodes
/// add members between its reads (a job listed twice on a busy cluster's history page).
final class NewestFirstScanTests: XCTestCase {
    /// A sorted set with `ZREVRANGEBYSCORE`'s answers: highest score first, equal scores in reverse
    /// order of member; bounds `+inf`, `-inf`, `<score>` and `(<score>`. Confined to the test's thread.
    final class SortedSet {
        var scores: [String: Int] = [:]
        var reads = 0
        /// Runs before each read but the first: what other nodes do meanwhile.
        var meanwhile: (SortedSet) -> Void = { _ in }

        func add(_ member: String, _ score: Int) { scores[member] = scores[member] ?? score }

        var ordered: [String] {
            scores.sorted { ($0.value, $0.key) > ($1.value, $1.key) }.map(\.key)
        }

        func read(_ max: String, _ min: String, _ count: Int?) -> [NewestFirstScan.Entry] {
            if reads > 0 { meanwhile(self) }
            reads += 1
            let entries = ordered.map { (member: $0, score: scores[$0]!) }.filter { below(max, $0.score) && above(min, $0.score) }
            return entries.prefix(count ?? entries.count).map { (member: $0.member, score: String($0.score)) }
        }

        private func below(_ bound: String, _ score: Int) -> Bool {
            if bound == "+inf" { return true }
            if bound.hasPrefix("(") { return score < Int(bound.dropFirst())! }
            return score <= Int(bound)!
        }

        private func above(_ bound: String, _ score: Int) -> Bool {
            if bound == "-inf" { return true }
            if bound.hasPrefix("(") { return score > Int(bound.dropFirst())! }
            return score >= Int(bound)!
        }
    }

    func listed(_ set: SortedSet, window: Int, from highest: String = "+inf", upTo most: Int = .max) throws -> [String] {
        var members: [String] = []
        try NewestFirstScan(window: window).scan(from: highest, read: set.read) { batch in
            members += batch
            return members.count < most
        }
        return members
    }

    func testListsEveryMemberOnceInRedissOrderAcrossWindowsThatCutEqualScores() throws {
        let set = SortedSet()
        for (member, score) in [("a", 9), ("b", 8), ("c", 8), ("d", 8), ("e", 7), ("f", 5), ("g", 5), ("h", 1)] { set.add(member, score) }
        for window in 1...9 {
            XCTAssertEqual(try listed(set, window: window), set.ordered, "window \(window)")
        }
    }

    func testMembersAddedAtTheTopMeanwhileNeitherRepeatNorHideOthers() throws {
        let set = SortedSet()
        for index in 0..<10 { set.add("old\(index)", 100 + index) }
        let before = set.ordered
        var next = 200
        set.meanwhile = { set in
            set.add("new\(next)", next)
            next += 1
        }
        let members = try listed(set, window: 3)
        XCTAssertEqual(members, before, "each old member once, in order; the new ones came after the scan began")
        XCTAssertGreaterThan(set.scores.count, before.count, "members were added while it read")
    }

    func testMembersAddedAtTheScoreBeingReadAreNotListedTwice() throws {
        let set = SortedSet()
        for (member, score) in [("m1", 5), ("m2", 4), ("m3", 4), ("m4", 3)] { set.add(member, score) }
        set.meanwhile = { set in set.add("m9", 4) }
        let members = try listed(set, window: 2)
        XCTAssertEqual(members.count, Set(members).count, "no member twice: \(members)")
        XCTAssertEqual(Set(members).intersection(["m1", "m2", "m3", "m4"]).count, 4, "every member there before: \(members)")
    }

    func testMoreEqualScoresThanAWindowAreReadWhole() throws {
        let set = SortedSet()
        for index in 0..<7 { set.add("same\(index)", 42) }
        set.add("older", 41)
        XCTAssertEqual(try listed(set, window: 3), set.ordered)
    }

    func testStartsAtTheBoundGivenAndStopsWhenTheVisitSaysSo() throws {
        let set = SortedSet()
        for index in 0..<20 { set.add(String(format: "j%02d", index), index) }
        XCTAssertEqual(try listed(set, window: 4, from: "9"), (0...9).reversed().map { String(format: "j%02d", $0) })
        let first = try listed(set, window: 4, upTo: 5)
        XCTAssertEqual(first, Array(set.ordered.prefix(first.count)), "the newest, in order")
        XCTAssertTrue((5..<9).contains(first.count), "no window after the visit said stop: \(first.count)")
        XCTAssertEqual(try listed(SortedSet(), window: 4), [])
    }
}
