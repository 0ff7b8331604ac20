import HeraldEngine
import HeraldTestSupport
import XCTest

/// The `progress` event is written by hand (`WireEncoder+Progress`), every other event from its
/// `JSONObject`. The two must give the same bytes for every progress value: random ones from a fixed
/// seed (a failure prints the seed and the index), and the values encoders get wrong. A snapshot is
/// written one job at a time, and must give the bytes of its whole `JSONObject` too.
final class WireEncoderFastPathTests: XCTestCase {
    private static let seed: UInt64 = 0x4641_5354

    private func general(_ event: EngineEvent, seq: Int64, ts: Int64) -> [UInt8] {
        JSONWriter.encode(.object(WireEncoder.object(event: event, seq: seq, ts: ts)))
    }

    private func assertSame(_ event: EngineEvent, seq: Int64, ts: Int64, _ label: @autoclosure () -> String) {
        let fast = WireEncoder.encode(event: event, seq: seq, ts: ts)
        let expected = general(event, seq: seq, ts: ts)
        XCTAssertEqual(
            fast, expected,
            "\(label()): fast\n\(String(decoding: fast, as: UTF8.self))\ngeneral\n\(String(decoding: expected, as: UTF8.self))")
    }

    func testRandomProgressEventsEqualTheGeneralEncoding() {
        var events = RandomEvents(seed: Self.seed)
        for index in 0..<20_000 {
            let event = EngineEvent.progress(job: events.jobID(), events.progress())
            let fast = WireEncoder.encode(event: event, seq: events.int64(), ts: events.int64())
            // Re-encode the same event at the same seq and ts through the general path.
            guard let decoded = try? WireDecoder.event(fast) else {
                return XCTFail("seed \(Self.seed), event \(index): the fast path wrote \(String(decoding: fast, as: UTF8.self))")
            }
            XCTAssertEqual(decoded.event, event, "seed \(Self.seed), event \(index)")
            guard fast == general(event, seq: decoded.seq, ts: decoded.ts) else {
                return assertSame(event, seq: decoded.seq, ts: decoded.ts, "seed \(Self.seed), event \(index)")
            }
        }
    }

    func testAwkwardValuesEqualTheGeneralEncoding() {
        let counts: [(Int64, Int64)] = [
            (0, 0), (1, 1), (1, 3), (2, 3), (5, 0), (-1, 10), (10, -1), (11, 10), (.max, .max), (.min, .max), (.max, 1), (1, .max),
            (.min, .min), (999_999_999_999_999, 1_000_000_000_000_000), (1 << 53, (1 << 53) + 1),
        ]
        let numbers: [Double?] = [
            nil, 0, -0.0, 1, 1.0, -1, 0.1, 0.5, 2.5, 1.0 / 3, 20, 1e-5, 1e14, 999_999_999_999_999, 999_999_999_999_999.5, 1e15, -1e15, 1e16,
            .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .nan, .infinity, -.infinity,
        ]
        let messages: [String?] = [nil] + RandomEvents.awkwardStrings + [String(repeating: "a\"\\\u{1}é", count: 300)]
        let jobs = [JobID("j-abcdefghijkl"), JobID("x"), JobID(String(repeating: "z", count: 64)), JobID("\"\\\n é")]
        let stamps: [Int64] = [0, 1, -1, .min, .max, 1_796_000_000_000_000]
        var index = 0
        for (completed, total) in counts {
            for rate in numbers {
                let progress = JobProgress(
                    completed: completed, total: total, message: messages[index % messages.count], rate: rate,
                    eta: numbers[(index * 7) % numbers.count])
                let event = EngineEvent.progress(job: jobs[index % jobs.count], progress)
                assertSame(event, seq: stamps[index % stamps.count], ts: stamps[(index / 3) % stamps.count], "\(progress)")
                index += 1
            }
        }
        for message in messages {
            assertSame(
                .progress(job: JobID("j-1"), JobProgress(completed: 1, total: 2, message: message)), seq: 1, ts: 2, "\(message ?? "nil")")
        }
    }

    func testSnapshotsEqualTheGeneralEncoding() {
        var random = RandomEvents(seed: Self.seed)
        for index in 0..<300 {
            var news = NewsFeed(capacity: 5)
            _ = news.append(random.list(0...3) { $0.string() }, at: random.int64())
            let workers: [WorkerInfo]
            if case .workers(let made) = random.event(5) { workers = made } else { workers = [] }
            let snapshot = Snapshot(
                epoch: random.string(), seq: random.int64(), jobs: random.list(0...8) { $0.record() }, news: news,
                limits: random.object(depth: 2), workers: workers)
            let reason = [WireEncoder.SnapshotReason.connect, .resume, .resync][index % 3]
            // Some of the hub's limits replace the engine's, as `maxMessageBytes` can.
            var extra = random.object(depth: 1)
            if let first = snapshot.limits.entries.first, random.bool() { extra[first.key] = "replaced" }
            let streamed = WireEncoder.encode(snapshot: snapshot, reason: reason, extraLimits: extra)
            let general = JSONWriter.encode(.object(WireEncoder.object(snapshot: snapshot, reason: reason, extraLimits: extra)))
            guard streamed == general else {
                return XCTFail(
                    "seed \(Self.seed), snapshot \(index): streamed\n\(String(decoding: streamed, as: UTF8.self))\n"
                        + "general\n\(String(decoding: general, as: UTF8.self))")
            }
        }
    }

    /// Both paths could agree and both be wrong: the exact bytes of one event, written out.
    func testExactBytesOfOneProgressEvent() {
        let progress = JobProgress(completed: 1, total: 3, message: "a\"b\n\u{1}é\u{7F}", rate: 1.0, eta: 0.25)
        let bytes = WireEncoder.encode(event: .progress(job: JobID("j-1"), progress), seq: 7, ts: -99)
        XCTAssertEqual(
            String(decoding: bytes, as: UTF8.self),
            #"{"type":"progress","seq":7,"ts":-99,"job":"j-1","completed":1,"total":3,"fraction":0.3333333333333333,"#
                + #""message":"a\"b\n\u0001é\u007f","rate":1,"eta":0.25}"#)
        let unknown = WireEncoder.encode(event: .progress(job: JobID("j-2"), JobProgress()), seq: 0, ts: 0)
        XCTAssertEqual(
            String(decoding: unknown, as: UTF8.self),
            #"{"type":"progress","seq":0,"ts":0,"job":"j-2","completed":0,"total":0,"fraction":0,"message":null,"rate":null,"eta":null}"#)
    }

    /// The writer's integers and strings, written without an intermediate `String` or byte by byte,
    /// against their plain definitions.
    func testIntegersAreWrittenAsTheirDecimalText() {
        var random = SplitMix64(seed: Self.seed + 1)
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, .max, .min, .max - 1, .min + 1]
        for _ in 0..<5_000 { values.append(Int64(bitPattern: random.next()) >> (random.next() % 64)) }
        for value in values { XCTAssertEqual(JSONWriter.encode(.int(value)), Array(String(value).utf8), "\(value)") }
    }

    func testStringsAreEscapedByteForByteAsDefined() {
        var events = RandomEvents(seed: Self.seed + 2)
        var texts = RandomEvents.awkwardStrings + ["plain", "\"at the ends\"", "\\", String(repeating: "\u{1F}x", count: 100)]
        for _ in 0..<5_000 { texts.append(events.string()) }
        for text in texts { XCTAssertEqual(JSONWriter.encode(.string(text)), Self.escaped(text), "\(text.debugDescription)") }
    }

    /// JSON string escaping spelled out one byte at a time: the definition the writer must meet.
    private static func escaped(_ text: String) -> [UInt8] {
        var out: [UInt8] = [0x22]
        for byte in text.utf8 {
            switch byte {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case 0..<0x20, 0x7F: out += Array(String(format: "\\u%04x", byte).utf8)
            default: out.append(byte)
            }
        }
        return out + [0x22]
    }
}
