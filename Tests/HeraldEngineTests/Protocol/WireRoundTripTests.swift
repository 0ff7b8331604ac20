import HeraldEngine
import HeraldTestSupport
import XCTest

/// The property a shared event stream rests on: a node that reads another node's event and encodes
/// it again sends its viewers the very same bytes. Thousands of random events of every case, from a
/// fixed seed (a failure prints the seed and the event's index, so it can be replayed).
final class WireRoundTripTests: XCTestCase {
    private static let seed: UInt64 = 0x4845_5241_4C44

    func testRandomEventsOfEveryCaseRoundTripByteForByte() throws {
        var events = RandomEvents(seed: Self.seed)
        var cases = Set<String>()
        for index in 0..<6_000 {
            let event = events.event(index)
            let seq = events.int64()
            let ts = events.int64()
            let bytes = WireEncoder.encode(event: event, seq: seq, ts: ts)
            let decoded: (seq: Int64, ts: Int64, event: EngineEvent)
            do { decoded = try WireDecoder.event(bytes) } catch {
                return XCTFail("seed \(Self.seed), event \(index): \(error) for \(String(decoding: bytes, as: UTF8.self))")
            }
            cases.insert(Self.caseName(decoded.event))
            guard decoded.seq == seq, decoded.ts == ts, decoded.event == event else {
                return XCTFail("seed \(Self.seed), event \(index): decoded \(decoded), expected \(event) at \(seq), \(ts)")
            }
            let again = WireEncoder.encode(event: decoded.event, seq: decoded.seq, ts: decoded.ts)
            guard again == bytes else {
                return XCTFail(
                    "seed \(Self.seed), event \(index): re-encoded\n\(String(decoding: again, as: UTF8.self))\nnot\n\(String(decoding: bytes, as: UTF8.self))"
                )
            }
        }
        XCTAssertEqual(cases, ["job", "progress", "results", "news", "log", "workers"], "every case was made and decoded")
    }

    /// An event cut short anywhere is refused as bad JSON, never read as a smaller event.
    func testEveryTruncationIsRefused() {
        var events = RandomEvents(seed: Self.seed + 1)
        for index in 0..<60 {
            let bytes = WireEncoder.encode(event: events.event(index), seq: 1, ts: 2)
            for length in 0..<bytes.count {
                XCTAssertThrowsError(try WireDecoder.event(Array(bytes[..<length])), "event \(index) cut to \(length) bytes") { error in
                    XCTAssertEqual((error as? EngineError)?.code, .badJSON)
                }
            }
        }
    }

    /// Bytes changed at random: an error, or an event that then round-trips exactly (never a crash).
    func testCorruptedEventsAreRefusedOrDecodeToACanonicalEvent() throws {
        var events = RandomEvents(seed: Self.seed + 2)
        var generator = SplitMix64(seed: Self.seed + 3)
        var refused = 0
        for index in 0..<3_000 {
            var bytes = WireEncoder.encode(event: events.event(index), seq: 5, ts: 6)
            for _ in 0..<(1 + Int(generator.next() % 3)) {
                bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            guard let decoded = try? WireDecoder.event(bytes) else {
                refused += 1
                continue
            }
            let canonical = WireEncoder.encode(event: decoded.event, seq: decoded.seq, ts: decoded.ts)
            let again = try WireDecoder.event(canonical)
            XCTAssertEqual(again.event, decoded.event, "event \(index)")
            XCTAssertEqual(WireEncoder.encode(event: again.event, seq: again.seq, ts: again.ts), canonical, "event \(index)")
        }
        XCTAssertGreaterThan(refused, 1_000, "most corruptions break the JSON or a field")
    }

    private static func caseName(_ event: EngineEvent) -> String {
        switch event {
        case .job: return "job"
        case .progress: return "progress"
        case .results: return "results"
        case .news: return "news"
        case .log: return "log"
        case .workers: return "workers"
        }
    }
}
