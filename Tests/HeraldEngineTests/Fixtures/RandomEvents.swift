import HeraldTestSupport
@testable import HeraldEngine

/// Random events of every case, with awkward values (empty and odd strings, extremes of Int64, every
/// kind of double, nil optionals, every state), from a seeded generator: one seed, one sequence.
struct RandomEvents {
    private var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    /// Strings that have broken JSON encoders: escapes, controls, DEL, non-ASCII, the same text in
    /// two normal forms, a byte-order mark, line and paragraph separators.
    static let awkwardStrings = [
        "", " ", "\"", "\\", "\\\"", "\n\r\t", "\u{0}", "\u{1}\u{1F}", "\u{7F}", "é", "e\u{301}", "😀", "👩‍👩‍👧",
        "\u{FEFF}", "\u{2028}\u{2029}", "</script>", "null", "{\"type\":\"job\"}", "\\u0000", "日本語", "\u{10FFFF}",
    ]

    mutating func event(_ index: Int) -> EngineEvent {
        switch index % 6 {
        case 0: return .job(record())
        case 1: return .progress(job: jobID(), progress())
        case 2: return .results(job: jobID(), items: list(0...6) { $0.json(depth: 3) })
        case 3:
            return .news(revision: int64(), items: list(0...5) { NewsItem(id: $0.string(), time: $0.int64(), headline: $0.string()) })
        case 4:
            let skipped = bool() ? 0 : Int(truncatingIfNeeded: int64() & Int64.max)
            return .log(
                job: jobID(), lines: list(0...6) { LogLine(stream: $0.bool() ? .stdout : .stderr, text: $0.string()) }, skipped: skipped,
                first: Int(truncatingIfNeeded: int64() & Int64.max))
        default:
            return .workers(
                list(0...4) {
                    WorkerInfo(
                        name: $0.string(), kinds: $0.list(0...3) { $0.string() }, slots: Int($0.int64()), busy: Int($0.int64()),
                        draining: $0.bool())
                })
        }
    }

    mutating func int64() -> Int64 {
        switch random.next() % 6 {
        case 0: return [Int64.min, Int64.max, 0, -1, 1, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1][Int(random.next() % 8)]
        case 1: return Int64.random(in: -1000...1000, using: &random)
        case 2: return Int64.random(in: 1_700_000_000_000...1_900_000_000_000_000, using: &random)
        default: return Int64(bitPattern: random.next())
        }
    }

    /// Any double, non-finite ones included (only JobProgress gets those, and keeps nil instead).
    mutating func double() -> Double {
        switch random.next() % 6 {
        case 0:
            return [0, -0.0, 1, -1, 0.1, 1e15, 1e16, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 2.5, 1e-5, 20][
                Int(random.next() % 12)]
        case 1: return Double(Int64.random(in: -100_000...100_000, using: &random))
        case 2: return Double.random(in: 0...1, using: &random)
        default: return Double(bitPattern: random.next())
        }
    }

    mutating func string() -> String {
        if random.next() % 2 == 0 { return Self.awkwardStrings[Int(random.next() % UInt64(Self.awkwardStrings.count))] }
        var text = ""
        for _ in 0..<Int(random.next() % 12) {
            // Mostly ASCII (controls and quotes included), then any plane; never a surrogate.
            let limit: UInt32 = random.next() % 3 == 0 ? 0x10FFFF : 0x80
            if let scalar = Unicode.Scalar(UInt32(random.next() % UInt64(limit + 1))) { text.unicodeScalars.append(scalar) }
        }
        return text
    }

    mutating func bool() -> Bool { random.next() % 2 == 0 }

    mutating func maybe<T>(_ make: (inout RandomEvents) -> T) -> T? { bool() ? make(&self) : nil }

    mutating func list<T>(_ counts: ClosedRange<Int>, _ make: (inout RandomEvents) -> T) -> [T] {
        (0..<Int.random(in: counts, using: &random)).map { _ in make(&self) }
    }

    mutating func jobID() -> JobID {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_")
        if bool() { return JobID("j-" + String((0..<12).map { _ in alphabet[Int(random.next() % 36)] })) }
        return JobID(String((0..<Int.random(in: 1...64, using: &random)).map { _ in alphabet[Int(random.next() % 64)] }))
    }

    mutating func json(depth: Int) -> JSONValue {
        switch random.next() % (depth > 0 ? 8 : 6) {
        case 0: return .null
        case 1: return .bool(bool())
        case 2: return .int(int64())
        // JSON has no NaN or infinity: a non-finite double is not a value a JSON document can hold.
        case 3:
            let value = double()
            return .double(value.isFinite ? value : 0)
        case 4, 5: return .string(string())
        case 6: return .array(list(0...4) { $0.json(depth: depth - 1) })
        default: return .object(object(depth: depth - 1))
        }
    }

    mutating func object(depth: Int) -> JSONObject {
        var object = JSONObject()
        for _ in 0..<Int(random.next() % 5) { object[string()] = json(depth: depth) }
        return object
    }

    mutating func progress() -> JobProgress {
        JobProgress(
            completed: int64(), total: int64(), message: maybe { $0.string() }, rate: maybe { $0.double() }, eta: maybe { $0.double() })
    }

    mutating func record() -> JobRecord {
        let kinds: [JobKind] = [.search, .sort, .fetch, .ticker, "backup", "é 😀", "\"\n"]
        var record = JobRecord(
            id: jobID(), kind: kinds[Int(random.next() % UInt64(kinds.count))], params: object(depth: 3),
            after: list(0...3) { $0.jobID() }, requestId: maybe { $0.string() }, state: JobState.allCases[Int(random.next() % 7)],
            progress: progress(), createdAt: int64(), startedAt: maybe { $0.int64() }, finishedAt: maybe { $0.int64() },
            error: maybe { $0.string() }, summary: maybe { $0.object(depth: 2) })
        record.exit = maybe { $0.object(depth: 1) }
        record.attempt = maybe { Int($0.int64()) }
        record.worker = maybe { $0.string() }
        record.node = maybe { $0.string() }
        return record
    }
}
