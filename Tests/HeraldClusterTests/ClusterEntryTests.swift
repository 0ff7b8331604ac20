import HeraldEngine
import HeraldRedis
import XCTest

@testable import HeraldCluster

/// A stream entry holds one event or one node's batch: its events are numbered on from the entry's
/// id, and an entry that does not decode whole is refused whole.
final class ClusterEntryTests: XCTestCase {
    private func encoding(localSeq: Int64, revision: Int64) -> [UInt8] {
        SequencedEvent(seq: localSeq, ts: 1_000 + localSeq, event: .news(revision: revision, items: [])).json
    }

    private func fields(node: String = "n1", _ encodings: [[UInt8]]) -> [RedisReply] {
        [.bulk(Array("n".utf8)), .bulk(Array(node.utf8)), .bulk(Array("e".utf8)), .bulk(Array(encodings.joined(separator: [0x0A])))]
    }

    func testOneEventEntry() throws {
        let events = try XCTUnwrap(ClusterEntry.events(firstSeq: 7, fields: fields([encoding(localSeq: 3, revision: 1)])))
        XCTAssertEqual(events.map(\.seq), [7])
        XCTAssertEqual(events.first?.node, "n1")
        XCTAssertEqual(events.first?.localSeq, 3)
        XCTAssertEqual(events.first?.ts, 1_003)
    }

    func testABatchEntryIsNumberedOnFromItsId() throws {
        let batch = (1...3).map { encoding(localSeq: $0, revision: 10 + $0) }
        let events = try XCTUnwrap(ClusterEntry.events(firstSeq: 41, fields: fields(node: "n2", batch)))
        XCTAssertEqual(events.map(\.seq), [41, 42, 43])
        XCTAssertEqual(events.map(\.localSeq), [1, 2, 3])
        XCTAssertEqual(Set(events.map(\.node)), ["n2"])
        let revisions: [Int64] = events.map { if case .news(let revision, _) = $0.event { revision } else { -1 } }
        XCTAssertEqual(revisions, [11, 12, 13])
    }

    func testAnEntryWithAnyBadEventIsRefusedWhole() {
        let good = encoding(localSeq: 1, revision: 1)
        XCTAssertNil(ClusterEntry.events(firstSeq: 1, fields: fields([good, Array("not json".utf8)])))
        XCTAssertNil(ClusterEntry.events(firstSeq: 1, fields: fields([good, []])), "an empty line is no event")
        XCTAssertNil(ClusterEntry.events(firstSeq: 1, fields: [.bulk(Array("n".utf8)), .bulk(Array("n1".utf8))]), "no `e`")
    }
}
