// report-cost: what a progress report costs a worker thread.
//
// A ProgressReporter can only be made by the engine, so this runs a real JobDispatcher with a small
// JobRunner of its own (`HotLoop`) whose run() calls the reporter in a tight loop and times itself.
// Every figure is the median of several runs, in nanoseconds per call, both by the wall clock and by
// the thread's own CPU clock (the machine is shared: wall time includes time the thread was not
// running at all).
//
// Also measured, because "reporting is almost free" is only worth something in a job that does work:
// a scanning loop of our own over an in-memory corpus, with and without a report per line and per
// 64 KiB chunk; and, with --corpus DIR, the engine's real SearchRunner, whose reports are counted
// from its source (one `add` per 1 MiB chunk) and priced with the measured cost.
//
// With --serve, a real WebSocketServer runs in the same process with a `ticker` job streaming to
// --clients connections opened by bench-client (another process): the report cost with the server
// busy fanning out on the same two cores.
//
// Output: a human summary on stderr and one JSON object on stdout (bench/run reads it).

import Dispatch
import Foundation
import HeraldBench
import HeraldEngine
import HeraldLWS
import HeraldServer
import Synchronization

// MARK: - Arguments

struct Options {
    var runs = 7
    var reports = 20_000_000
    var scanMegabytes = 64
    var corpus: String?
    var serve = false
    var clients = 0
    var clientBinary: String?
    var tickerRate = 1000.0
    var quiet = false

    init(_ argv: [String]) {
        var index = 1
        func value() -> String {
            index += 1
            guard index < argv.count else { fail("\(argv[index - 1]) needs a value") }
            return argv[index]
        }
        while index < argv.count {
            switch argv[index] {
            case "--runs": runs = Int(value()) ?? runs
            case "--reports": reports = Int(value()) ?? reports
            case "--scan-mb": scanMegabytes = Int(value()) ?? scanMegabytes
            case "--corpus": corpus = value()
            case "--serve": serve = true
            case "--clients": clients = Int(value()) ?? 0
            case "--client-bin": clientBinary = value()
            case "--ticker-rate": tickerRate = Double(value()) ?? tickerRate
            case "--quiet": quiet = true
            case "--help", "-h":
                print(
                    """
                    usage: report-cost [--runs N] [--reports N] [--scan-mb MB] [--corpus DIR]
                                       [--serve [--clients N --client-bin PATH] [--ticker-rate R]]
                    """)
                exit(0)
            default: fail("unknown argument \(argv[index])")
            }
            index += 1
        }
        runs = max(1, runs)
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("report-cost: \(message)\n".utf8))
    exit(2)
}

func note(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

// MARK: - Clocks

/// Nanoseconds of CPU time the calling thread has used.
func threadCPUNanos() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

func wallNanos() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

struct Timing: Sendable {
    var wall: Double
    var cpu: Double
}

/// Wall and thread-CPU nanoseconds of `body` on the calling thread.
@inline(never)
func timed(_ body: () -> Void) -> Timing {
    let cpu0 = threadCPUNanos()
    let wall0 = wallNanos()
    body()
    let wall1 = wallNanos()
    let cpu1 = threadCPUNanos()
    return Timing(wall: Double(wall1 - wall0), cpu: Double(cpu1 - cpu0))
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Keeps a value alive so the optimiser cannot drop the loop that made it.
@inline(never)
func consume(_ value: Int) {
    if value == -42 { note("unlikely") }
}

// MARK: - The in-memory corpus for the scanning loop

/// Deterministic text: words from a small vocabulary, lines of 40–120 bytes, a needle now and then.
func makeText(megabytes: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima",
        "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey",
        "xray", "yankee", "zulu", "the", "of", "and", "progress", "worker", "thread", "queue", "event",
    ].map { Array($0.utf8) }
    var state = seed
    func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
    let size = megabytes << 20
    var text: [UInt8] = []
    text.reserveCapacity(size + 256)
    let needle = Array("needle42".utf8)
    while text.count < size {
        let target = 40 + Int(next() % 81)
        var length = 0
        if next() % 500 == 0 {
            text.append(contentsOf: needle)
            length += needle.count
        }
        while length < target {
            let word = words[Int(next() % UInt64(words.count))]
            if length > 0 {
                text.append(0x20)
                length += 1
            }
            text.append(contentsOf: word)
            length += word.count
        }
        text.append(0x0A)
    }
    return text
}

/// How the scanning loop reports.
enum ScanReporting: String {
    case none
    case perLine = "per-line"
    case perChunk = "per-64KiB"
}

/// Whether `needle` occurs in `base[0..<count]`: memchr for its first byte, memcmp for the rest
/// (Swift's Glibc module does not offer memmem).
@inline(__always)
func contains(_ base: UnsafeRawPointer, _ count: Int, _ needle: UnsafeRawBufferPointer) -> Bool {
    let first = Int32(needle[0])
    var offset = 0
    while count - offset >= needle.count {
        guard let hit = memchr(base + offset, first, count - offset - needle.count + 1) else { return false }
        let at = base.distance(to: UnsafeRawPointer(hit))
        if memcmp(base + at, needle.baseAddress!, needle.count) == 0 { return true }
        offset = at + 1
    }
    return false
}

/// A line scanner of the usual shape: find each line's end, look for the needle in it, count matches.
/// With `reporting`, it tells `progress` how many bytes it has done, per line or per 64 KiB chunk.
@inline(never)
func scan(_ text: UnsafeRawBufferPointer, needle: [UInt8], reporting: ScanReporting, progress: ProgressReporter) -> Int {
    guard let base = text.baseAddress else { return 0 }
    let count = text.count
    var matches = 0
    var start = 0
    var reportedAt = 0
    needle.withUnsafeBytes { needleBytes in
        while start < count {
            let end: Int
            if let newline = memchr(base + start, 0x0A, count - start) {
                end = base.distance(to: UnsafeRawPointer(newline))
            } else {
                end = count
            }
            if contains(base + start, end - start, needleBytes) { matches += 1 }
            start = end + 1
            switch reporting {
            case .none: break
            case .perLine: progress.add(Int64(start - reportedAt)); reportedAt = start
            case .perChunk:
                if start - reportedAt >= 65536 {
                    progress.add(Int64(start - reportedAt))
                    reportedAt = start
                }
            }
        }
    }
    return matches
}

// MARK: - The job that runs the measurements on a worker thread

/// What a HotLoop run measured, handed back to the main thread.
final class Mailbox: Sendable {
    let results = Mutex<[String: [Timing]]>([:])
    func add(_ key: String, _ timing: Timing) { results.withLock { $0[key, default: []].append(timing) } }
    func take() -> [String: [Timing]] {
        results.withLock { value in
            defer { value = [:] }; return value
        }
    }
}

/// Runs as a `sort` job (the kinds are a closed enum; the dispatcher only needs a runner per kind).
/// Params: `mode` (report, add2, scan) and `n`. It records its timings in the mailbox.
struct HotLoop: JobRunner {
    let kind = JobKind.sort
    let mailbox: Mailbox
    let text: [UInt8]

    func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject { params }

    func run(_ context: JobContext) throws -> JSONObject {
        let n = Int(context.params["n"]?.intValue ?? 1_000_000)
        let progress = context.progress
        switch context.params["mode"]?.stringValue ?? "report" {
        case "report":
            let total = Int64(n)
            // One call first: the first report of a job hops to the dispatcher once (by design).
            progress.report(completed: 0, total: total)
            mailbox.add(
                "report",
                timed {
                    for i in 0..<n { progress.report(completed: Int64(i), total: total) }
                })
        case "add1":
            progress.add(0)
            mailbox.add(
                "add1",
                timed {
                    for _ in 0..<n { progress.add(1) }
                })
        case "add2":
            // Two threads adding into one counter: the cache line bounces between the cores.
            progress.add(0)
            let wall0 = wallNanos()
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                mailbox.add(
                    "add2-thread",
                    timed {
                        for _ in 0..<n { progress.add(1) }
                    })
            }
            mailbox.add("add2", Timing(wall: Double(wallNanos() - wall0), cpu: .nan))
        case "scan":
            let needle = Array("needle42".utf8)
            progress.report(completed: 0, total: Int64(text.count))
            for reporting in [ScanReporting.none, .perLine, .perChunk] {
                var matches = 0
                let timing = text.withUnsafeBytes { bytes in
                    timed { matches = scan(bytes, needle: needle, reporting: reporting, progress: progress) }
                }
                consume(matches)
                mailbox.add("scan-\(reporting.rawValue)", timing)
            }
        default:
            throw JobFailure("unknown mode")
        }
        return [:]
    }
}

// MARK: - Engine helpers

func waitForEnd(_ engine: JobDispatcher, _ id: JobID, timeout: Double = 600) -> JobRecord? {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if let record = engine.job(id.rawValue), record.state.isTerminal { return record }
        usleep(1000)
    }
    return nil
}

func runJob(_ engine: JobDispatcher, kind: JobKind, _ params: JSONObject) -> JobRecord {
    switch engine.start(StartRequest(kind: kind.rawValue, params: params)) {
    case .success(let record):
        guard let done = waitForEnd(engine, record.id) else { fail("job \(record.id) did not finish") }
        guard done.state == .succeeded else { fail("job \(kind) ended \(done.state): \(done.error ?? "")") }
        return done
    case .failure(let error): fail("cannot start \(kind): \(error)")
    }
}

// MARK: - Main

let options = Options(CommandLine.arguments)
signal(SIGPIPE, SIG_IGN)

let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("report-cost-\(getpid())")
try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }

let mailbox = Mailbox()
// The server's inbox, made first so the ticker is paced by delivery as under `herald serve --bench`.
let inbox = DeliveryInbox()
let text = makeText(megabytes: options.scanMegabytes)
let searchRoot = options.corpus.map { URL(fileURLWithPath: $0) } ?? scratch
let environment = JobEnvironment(
    searchRoot: searchRoot, dataDirectory: scratch.appendingPathComponent("data"), newsSource: NewsSource(seed: 1))
var kindLimits = EngineConfiguration.defaultKindLimits
kindLimits[.sort] = .init(maxConcurrent: 1, refuseWhenBusy: false)
let engine = JobDispatcher(
    configuration: EngineConfiguration(workers: 4, kindLimits: kindLimits, enableTicker: true),
    environment: environment,
    runners: [
        HotLoop(mailbox: mailbox, text: text), TickerRunner(mayEmit: { inbox.undeliveredEvents <= 4096 && !inbox.deliveryIsBehind }),
        SearchRunner(),
    ])

// --serve: a real server in this process, a ticker, and (optionally) clients in another process.
var server: WebSocketServer?
var clientProcess: Process?
var clientOutput: Pipe?
var tickerJob: JobID?
var clientStdin: Pipe?
if options.serve {
    var configuration = ServerConfiguration()
    configuration.port = 0
    configuration.maxConnections = 20_000
    configuration.logLevel = .error
    let made = WebSocketServer(configuration: configuration, engine: engine, logger: Logger(level: .error), version: "bench", inbox: inbox)
    let port: Int
    do { port = try made.start() } catch { fail("server: \(error)") }
    server = made
    if options.clients > 0 {
        guard let binary = options.clientBinary else { fail("--clients needs --client-bin") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        // Long enough to cover every run below; bench-client stops by itself.
        process.arguments = [
            "--url", "ws://127.0.0.1:\(port)/ws", "-n", String(options.clients), "--duration", "600", "--quiet",
            "--stop-on-stdin-eof",
        ]
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        do { try process.run() } catch { fail("cannot start \(binary): \(error)") }
        clientProcess = process
        clientOutput = output
        // bench-client prints "connected N" once every connection is open (or failed).
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty { fail("bench-client ended before connecting") }
            if byte[0] == 0x0A {
                let text = String(decoding: line, as: UTF8.self)
                if text.hasPrefix("connected") {
                    note("clients: \(text)")
                    break
                }
                line = Data()
            } else {
                line.append(byte)
            }
        }
        // Keep the pipe to its stdin open; closing it tells bench-client to stop and report.
        clientStdin = input
    }
    let ticker = runTickerStart(rate: options.tickerRate)
    tickerJob = ticker
}

func runTickerStart(rate: Double) -> JobID {
    switch engine.start(StartRequest(kind: JobKind.ticker.rawValue, params: ["rate": .double(rate), "duration": .double(3600)])) {
    case .success(let record): return record.id
    case .failure(let error): fail("ticker: \(error)")
    }
}

for _ in 0..<options.runs {
    _ = runJob(engine, kind: .sort, ["mode": "report", "n": .int(Int64(options.reports))])
    _ = runJob(engine, kind: .sort, ["mode": "add1", "n": .int(Int64(options.reports))])
    _ = runJob(engine, kind: .sort, ["mode": "add2", "n": .int(Int64(options.reports / 2))])
}
if !options.serve {
    for _ in 0..<max(3, options.runs / 2) {
        _ = runJob(engine, kind: .sort, ["mode": "scan", "n": 0])
    }
}

// The real SearchRunner over --corpus: its wall time, and what its reports cost by the measured price.
var searchTimes: [Double] = []
var searchBytes: Int64 = 0
var searchFiles: Int64 = 0
if let corpus = options.corpus, !options.serve {
    _ = corpus
    for run in 0..<4 {
        let started = wallNanos()
        let record = runJob(engine, kind: .search, ["query": "needle42", "caseSensitive": true])
        let elapsed = Double(wallNanos() - started)
        if run > 0 { searchTimes.append(elapsed) }  // The first run warms the page cache.
        searchBytes = record.summary?["bytes"]?.intValue ?? 0
        searchFiles = record.summary?["files"]?.intValue ?? 0
    }
}

var delivered: String?
if let ticker = tickerJob {
    _ = engine.cancel(ticker.rawValue)
    _ = waitForEnd(engine, ticker, timeout: 10)
}
if let process = clientProcess {
    try? clientStdin?.fileHandleForWriting.close()
    let data = clientOutput?.fileHandleForReading.readDataToEndOfFile() ?? Data()
    process.waitUntilExit()
    delivered = String(decoding: data, as: UTF8.self).split(separator: "\n").last(where: { $0.hasPrefix("{") }).map(String.init)
}
server?.stop()
engine.shutdown(grace: 1)

// MARK: - Report

let results = mailbox.take()
func perCall(_ key: String, calls: Int) -> (wall: Double, cpu: Double) {
    let timings = results[key] ?? []
    return (median(timings.map { $0.wall / Double(calls) }), median(timings.map { $0.cpu / Double(calls) }))
}

let report = perCall("report", calls: options.reports)
let add1 = perCall("add1", calls: options.reports)
let add2Thread = perCall("add2-thread", calls: options.reports / 2)
// Both threads together did `reports` adds in the add2 wall time.
let add2Wall = median((results["add2"] ?? []).map { $0.wall / Double(options.reports) })

var json: [String: Any] = [
    "runs": options.runs, "reports": options.reports, "serve": options.serve, "clients": options.clients,
    "report_ns_wall": report.wall, "report_ns_cpu": report.cpu,
    "add1_ns_wall": add1.wall, "add1_ns_cpu": add1.cpu,
    "add2_ns_per_call_per_thread_cpu": add2Thread.cpu, "add2_ns_per_call_aggregate_wall": add2Wall,
]
note(
    String(
        format: "report(completed:total:)  %.2f ns/call wall, %.2f ns/call thread CPU (median of %d runs of %d)",
        report.wall, report.cpu, options.runs, options.reports))
note(String(format: "add(_:) one thread         %.2f ns/call wall, %.2f ns/call thread CPU", add1.wall, add1.cpu))
note(
    String(
        format: "add(_:) two threads        %.2f ns/call per thread (CPU), %.2f ns/call for both together (wall)",
        add2Thread.cpu, add2Wall))

if !options.serve {
    let none = median((results["scan-none"] ?? []).map(\.cpu))
    let line = median((results["scan-per-line"] ?? []).map(\.cpu))
    let chunk = median((results["scan-per-64KiB"] ?? []).map(\.cpu))
    let lines = text.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    json["scan_mb"] = options.scanMegabytes
    json["scan_lines"] = lines
    json["scan_ms_no_reports"] = none / 1e6
    json["scan_ms_report_per_line"] = line / 1e6
    json["scan_ms_report_per_64k"] = chunk / 1e6
    json["scan_overhead_pct_per_line"] = (line / none - 1) * 100
    json["scan_overhead_pct_per_64k"] = (chunk / none - 1) * 100
    note(
        String(
            format:
                "scan of %d MiB (%d lines), thread CPU: no reports %.1f ms; a report per line %.1f ms (%+.2f%%); per 64 KiB %.1f ms (%+.2f%%)",
            options.scanMegabytes, lines, none / 1e6, line / 1e6, (line / none - 1) * 100, chunk / 1e6, (chunk / none - 1) * 100))
}
if !searchTimes.isEmpty {
    let wall = median(searchTimes)
    // SearchScan: one setTotal/report at the start, one add per 1 MiB chunk of each file, a few setTotals.
    let reports = Double(searchBytes) / Double(1 << 20) + Double(searchFiles) + 1
    let cost = reports * max(add1.wall, add2Thread.cpu)
    json["search_ms"] = wall / 1e6
    json["search_bytes"] = searchBytes
    json["search_reports_estimated"] = reports
    json["search_report_share_pct"] = cost / wall * 100
    note(
        String(
            format: "SearchRunner in-process: %.1f ms for %lld bytes; about %.0f reports x %.1f ns = %.4f%% of it (analytic)",
            wall / 1e6, searchBytes, reports, max(add1.wall, add2Thread.cpu), cost / wall * 100))
}
if let delivered { json["clients_result"] = delivered }

let data = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
print(String(decoding: data, as: UTF8.self))
