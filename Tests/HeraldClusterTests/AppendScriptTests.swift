import HeraldEngine
import HeraldRedis
import HeraldTestSupport
import XCTest

@testable import HeraldCluster

/// The `append` script on a real redis-server: a batch is numbered in order without gaps, fenced per
/// event, refused whole under another epoch, and keeps what its events change.
final class AppendScriptTests: XCTestCase {
    let keys = ClusterKeys()
    let mine = JobID("j-1")
    let theirs = JobID("j-2")

    private func connect() throws -> RedisConnection {
        let redis = try startRedis()
        let connection = try RedisConnection(address: redis.address)
        XCTAssertEqual(try connection.command("SET", keys.epoch, "e").string, "OK")
        XCTAssertEqual(try connection.command("HSET", keys.owner, theirs.rawValue, "n2").integer, 1)
        return connection
    }

    private func event(
        _ text: String, job: JobID? = nil, record: String? = nil, kept: AppendScript.Kept? = nil, cap: Int = 0, items: [String] = []
    ) -> AppendScript.Event {
        AppendScript.Event(
            encoding: Array(text.utf8), job: job, record: record.map { Array($0.utf8) }, kind: record == nil ? nil : "step", ended: false,
            workers: nil, kept: kept, cap: cap, items: items.map { Array($0.utf8) })
    }

    private var tickets = 0

    private func append(
        _ events: [AppendScript.Event], epoch: String = "e", ticket: String? = nil, retry: Bool = false, on connection: RedisConnection
    ) throws -> RedisReply {
        tickets += 1
        return try connection.evaluate(
            AppendScript(
                keys: .init(keys),
                args: .init(
                    epoch: epoch, node: "n1", maxLength: 1000, retainedFinished: 10, prefix: keys.prefix, historyJobs: 10,
                    keptResultBytes: 0, ticket: ticket ?? "test:\(tickets)", retry: retry, events: events)))
    }

    /// The stream's entries: id and encodings (one line each).
    private func stream(_ connection: RedisConnection) throws -> [(String, String)] {
        try connection.command("XRANGE", keys.events, "-", "+").array?.compactMap { entry in
            guard let parts = entry.array, let id = parts[0].string, let fields = parts[1].array else { return nil }
            return (id, fields.last?.string ?? "")
        } ?? []
    }

    /// The stream's events: each entry's lines, numbered on from its id.
    private func events(_ connection: RedisConnection) throws -> [(Int, String)] {
        try stream(connection).flatMap { id, encodings in
            let first = Int(id.prefix { $0 != "-" }) ?? -1
            return encodings.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { (first + $0, String($1)) }
        }
    }

    func testABatchIsNumberedInOrderWithoutGapsAndEachEventIsFenced() throws {
        let connection = try connect()
        let reply = try append(
            [
                event("news"), event("theirs", job: theirs), event("created", job: mine, record: #"{"createdAt":5}"#),
                event("progress", job: mine),
            ], on: connection)
        let answers = try XCTUnwrap(reply.array, "\(reply)")
        XCTAssertEqual(answers.count, 4)
        XCTAssertEqual(answers[0].integer, 1)
        XCTAssertEqual(answers[1].errorMessage?.hasPrefix("STALE job j-2 is held by n2"), true, "\(answers[1])")
        XCTAssertEqual(answers[2].integer, 2)
        XCTAssertEqual(answers[3].integer, 3)
        XCTAssertEqual(try stream(connection).map(\.0), ["1-0"], "one entry for the batch")
        XCTAssertEqual(try events(connection).map(\.0), [1, 2, 3])
        XCTAssertEqual(try events(connection).map(\.1), ["news", "created", "progress"])
        XCTAssertEqual(try connection.command("GET", keys.seq).string, "3")
        XCTAssertEqual(try connection.command("HGET", keys.owner, mine.rawValue).string, "n1", "a job's first record makes it the node's")
        XCTAssertEqual(try connection.command("HGET", keys.jobs, mine.rawValue).string, #"{"createdAt":5}"#)
        XCTAssertEqual(try connection.command("ZSCORE", keys.created, mine.rawValue).string, "2")

        // The next batch goes on from there.
        let next = try XCTUnwrap(try append([event("a"), event("b", job: mine)], on: connection).array)
        XCTAssertEqual(next.map(\.integer), [4, 5])
        XCTAssertEqual(try stream(connection).map(\.0), ["1-0", "4-0"])
        XCTAssertEqual(try events(connection).map(\.0), [1, 2, 3, 4, 5])
    }

    func testABatchSentAgainAfterALostAnswerIsAnsweredAsBeforeAndNotAppendedTwice() throws {
        let connection = try connect()
        let batch = [event("created", job: mine, record: #"{"createdAt":5}"#), event("theirs", job: theirs), event("progress", job: mine)]
        let first = try XCTUnwrap(try append(batch, ticket: "run1:1", on: connection).array)
        XCTAssertEqual(first[0].integer, 1)
        XCTAssertEqual(first[1].errorMessage?.hasPrefix("STALE"), true)
        // The answer was lost with the connection: the publisher sends the same batch, same ticket.
        let again = try XCTUnwrap(try append(batch, ticket: "run1:1", retry: true, on: connection).array, "a reply per event")
        XCTAssertEqual(again.count, 3)
        XCTAssertEqual(again[0].integer, 0, "recognised: no seq given again")
        XCTAssertEqual(again[1].errorMessage?.hasPrefix("STALE job j-2"), true, "refused as it was the first time: \(again[1])")
        XCTAssertEqual(again[2].integer, 0)
        XCTAssertEqual(try events(connection).map(\.1), ["created", "progress"], "nothing appended twice")
        XCTAssertEqual(try connection.command("GET", keys.seq).string, "2")

        // A retry of a batch that never landed (its ticket is not the node's last) is appended.
        let lost = try XCTUnwrap(try append([event("next")], ticket: "run1:2", retry: true, on: connection).array)
        XCTAssertEqual(lost.map(\.integer), [3])
        // And a ticket of an earlier run of the node does not match this run's batches.
        XCTAssertEqual(try append([event("after")], ticket: "run2:2", retry: true, on: connection).array?.map(\.integer), [4])
        XCTAssertEqual(try events(connection).map(\.1), ["created", "progress", "next", "after"])
        XCTAssertEqual(try events(connection).map(\.0), [1, 2, 3, 4])
    }

    func testAnotherEpochRefusesTheWholeBatch() throws {
        let connection = try connect()
        let reply = try append([event("a"), event("b")], epoch: "old", on: connection)
        XCTAssertEqual(reply.errorMessage?.hasPrefix("EPOCH"), true, "\(reply)")
        XCTAssertEqual(try stream(connection).count, 0)
        XCTAssertTrue(try connection.command("GET", keys.seq).isNull)
    }

    func testAnEventThatFailsPartWayLeavesNoGap() throws {
        let connection = try connect()
        // A record that is not JSON fails after its entry is in (decoding its `createdAt`).
        let reply = try XCTUnwrap(
            try append([event("a"), event("bad", job: mine, record: "not json"), event("c")], on: connection).array)
        XCTAssertEqual(reply[0].integer, 1)
        XCTAssertNotNil(reply[1].errorMessage)
        XCTAssertEqual(reply[2].integer, 3)
        XCTAssertEqual(try events(connection).map(\.0), [1, 2, 3])
        XCTAssertEqual(try events(connection).map(\.1), ["a", "bad", "c"])
        XCTAssertEqual(try connection.command("GET", keys.seq).string, "3")
    }

    func testTheStreamKeepsTheEventsOfAboutTheLastMaxLengthSeqs() throws {
        let connection = try connect()
        // 300 batches of one event, a stream of 1,000 seqs at most: nothing trimmed yet.
        for index in 1...300 { _ = try append([event("e\(index)")], on: connection) }
        XCTAssertEqual(try connection.command("XLEN", keys.events).integer, 300)
        // Then batches of five up to seq 1,500: entries of seqs below about 500 go, whole nodes of the
        // stream at a time (`MINID ~`), while every event of the last 1,000 seqs stays.
        for index in 0..<240 { _ = try append((0..<5).map { event("b\(index).\($0)") }, on: connection) }
        let kept = try events(connection)
        XCTAssertEqual(kept.last?.0, 1500)
        XCTAssertLessThanOrEqual(kept.first?.0 ?? .max, 501, "the last 1,000 seqs are all there")
        XCTAssertGreaterThan(kept.first?.0 ?? 0, 1, "older ones were trimmed")
        XCTAssertEqual(kept.map(\.0), Array(kept.first!.0...1500), "no gap inside")
    }

    func testResultsAndLogLinesAreKeptUpToTheirCaps() throws {
        let connection = try connect()
        XCTAssertEqual(try connection.command("HSET", keys.owner, mine.rawValue, "n1").integer, 1)
        let reply = try XCTUnwrap(
            try append(
                [
                    event("results", job: mine, kept: .results, cap: 2, items: ["r1", "r2", "r3"]),
                    event("log", job: mine, kept: .log, cap: 2, items: ["l1", "l2", "l3"]),
                    event("log", job: mine, kept: .log, cap: 2, items: []),
                ], on: connection
            ).array)
        XCTAssertEqual(reply.map(\.integer), [1, 2, 3])
        XCTAssertEqual(try connection.command("LRANGE", keys.results(mine.rawValue), "0", "-1").array?.map(\.string), ["r1", "r2"])
        XCTAssertEqual(try connection.command("HGET", keys.resultBytes, mine.rawValue).string, "4")
        XCTAssertEqual(try connection.command("LRANGE", keys.log(mine.rawValue), "0", "-1").array?.map(\.string), ["l2", "l3"])
        XCTAssertEqual(try connection.command("GET", keys.logFirst(mine.rawValue)).string, "1")
    }
}
