// search-throughput: Herald's search against grep -rF and rg -F over the same generated corpus.
//
// It writes a deterministic corpus of text files under /tmp (a few hundred MB by default: 150 KB
// files, or `--files N --file-kb K`), starts the real release binary twice (`herald serve --port 0
// --search-root CORPUS`, once with `--search-threads 1`, once with its default or `--threads N`),
// reads the page cache warm, and then for each run: POSTs /api/jobs, polls /api/jobs/ID until the job ends (wall time from the POST
// to the answer that says it ended), and also takes the job's own startedAt/finishedAt (ms). grep and
// rg run on the same files with their output sent to a file (not /dev/null: GNU grep stops at the
// first match when its output is /dev/null). The corpus is deleted at the end.
//
// Output: a human table on stderr and one JSON object on stdout (bench/run reads it).
// All traffic goes to 127.0.0.1.

import Foundation

struct Options {
    var herald: String?
    var megabytes = 300
    var runs = 3
    var directory = "/tmp/herald-bench-corpus-\(getpid())"
    var keep = false
    /// The corpus's shape: this many files of this many KB (1,000 bytes) instead of `megabytes`.
    var files: Int?
    var fileKB = 150
    /// `--search-threads` of the parallel server; nil: its default (the cores).
    var threads: Int?

    init(_ argv: [String]) {
        var index = 1
        func value() -> String {
            index += 1
            guard index < argv.count else { fail("\(argv[index - 1]) needs a value") }
            return argv[index]
        }
        while index < argv.count {
            switch argv[index] {
            case "--herald": herald = value()
            case "--mb": megabytes = Int(value()) ?? megabytes
            case "--runs": runs = max(1, Int(value()) ?? runs)
            case "--dir": directory = value()
            case "--keep": keep = true
            case "--files": files = Int(value()).map { max(1, $0) }
            case "--file-kb": fileKB = max(1, Int(value()) ?? fileKB)
            case "--threads": threads = Int(value()).map { max(1, $0) }
            case "--help", "-h":
                print(
                    "usage: search-throughput --herald PATH [--mb 300 | --files N --file-kb K] [--threads N] [--runs 3] [--dir /tmp/…] [--keep]"
                )
                exit(0)
            default: fail("unknown argument \(argv[index])")
            }
            index += 1
        }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("search-throughput: \(message)\n".utf8))
    exit(2)
}

func note(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

func monotonicSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

// MARK: - Corpus

let needle = "quixotic-needle"

/// 20 folders (fewer when there are fewer files) × N files of `fileSize` bytes and a line: lines of
/// words, a needle on about one line in 20,000. Returns the number of lines that hold the needle.
func makeCorpus(at root: String, files: Int, fileSize: Int) -> Int {
    let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima",
        "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey",
        "xray", "yankee", "zulu", "progress", "worker", "thread", "queue", "event", "needless", "quixote",
    ].map { Array($0.utf8) }
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
    let needleBytes = Array(needle.utf8)
    var planted = 0
    var buffer: [UInt8] = []
    buffer.reserveCapacity(fileSize + 512)
    for index in 0..<files {
        let folder = "\(root)/d\(index % 20)"
        if index < 20 { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        buffer.removeAll(keepingCapacity: true)
        while buffer.count < fileSize {
            let target = 30 + Int(next() % 91)
            var length = 0
            if next() % 20_000 == 0 {
                buffer.append(contentsOf: needleBytes)
                length += needleBytes.count
                planted += 1
            }
            while length < target {
                let word = words[Int(next() % UInt64(words.count))]
                if length > 0 {
                    buffer.append(0x20)
                    length += 1
                }
                buffer.append(contentsOf: word)
                length += word.count
            }
            buffer.append(0x0A)
        }
        let path = "\(folder)/f\(index).txt"
        guard FileManager.default.createFile(atPath: path, contents: Data(buffer)) else { fail("cannot write \(path)") }
    }
    return planted
}

// MARK: - A small HTTP/1.1 client for 127.0.0.1

/// One request, `Connection: close`, the whole answer read. Returns (status, body).
func http(_ method: String, port: Int, path: String, body: String? = nil) -> (Int, String) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { fail("socket: \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { fail("connect to 127.0.0.1:\(port): \(errno)") }
    var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
    request += "\r\n" + (body ?? "")
    let bytes = Array(request.utf8)
    var sent = 0
    while sent < bytes.count {
        let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { fail("send: \(errno)") }
        sent += n
    }
    var answer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { break }
        answer.append(contentsOf: chunk[0..<n])
    }
    let text = String(decoding: answer, as: UTF8.self)
    guard let split = text.range(of: "\r\n\r\n") else { return (0, text) }
    let statusLine = text[..<split.lowerBound].split(separator: "\r\n").first ?? ""
    let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
    var payload = String(text[split.upperBound...])
    // Chunked answers: join the chunks.
    if text[..<split.lowerBound].lowercased().contains("transfer-encoding: chunked") {
        var joined = ""
        var rest = Substring(payload)
        while let lineEnd = rest.range(of: "\r\n"), let size = Int(rest[..<lineEnd.lowerBound], radix: 16), size > 0 {
            let start = lineEnd.upperBound
            let end = rest.utf8.index(start, offsetBy: size)
            joined += rest[start..<end]
            rest = rest[end...].dropFirst(2)
        }
        payload = joined
    }
    return (status, payload)
}

func json(_ text: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
}

// MARK: - Processes

/// Runs a command with its output in a file; returns (seconds, exit status, output).
func runTool(_ arguments: [String], output: String) -> (Double, Int32, String) {
    _ = FileManager.default.createFile(atPath: output, contents: nil)
    guard let handle = FileHandle(forWritingAtPath: output) else { fail("cannot write \(output)") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.standardOutput = handle
    process.standardError = FileHandle.nullDevice
    // Not waitUntilExit: here it polls every 50 ms, which rounded every time up to the next 50 ms
    // step (rg's 0.043 s read 0.051 s, grep's 0.24 s read 0.251 s). The handler runs when the child
    // is reaped.
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    let started = monotonicSeconds()
    do { try process.run() } catch { fail("cannot run \(arguments[0]): \(error)") }
    exited.wait()
    let elapsed = monotonicSeconds() - started
    try? handle.close()
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    return (elapsed, process.terminationStatus, text)
}

func which(_ tool: String) -> String? {
    for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
        let path = "\(folder)/\(tool)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

// MARK: - Main

let options = Options(CommandLine.arguments)
guard let heraldPath = options.herald else { fail("--herald PATH is required (a release build of herald)") }
signal(SIGPIPE, SIG_IGN)

let root = options.directory
try? FileManager.default.removeItem(atPath: root)
let corpus = "\(root)/corpus"
try? FileManager.default.createDirectory(atPath: corpus, withIntermediateDirectories: true)
let generationStarted = monotonicSeconds()
let fileSize = options.files == nil ? 150 * 1024 : options.fileKB * 1000
let fileCount = options.files ?? max(1, (options.megabytes << 20) / fileSize)
let planted = makeCorpus(at: corpus, files: fileCount, fileSize: fileSize)
note(
    String(
        format: "corpus: %d files of %d KB in %@, %d needle lines, written in %.1f s", fileCount, fileSize / 1000, corpus, planted,
        monotonicSeconds() - generationStarted))

/// A server on a free port (its first stdout line is its URL); returns it and the port.
func startServer(threads: Int?, data: String) -> (Process, Int) {
    let server = Process()
    server.executableURL = URL(fileURLWithPath: heraldPath)
    server.arguments =
        ["serve", "--port", "0", "--search-root", corpus, "--data-dir", data, "--log-level", "error"]
        + (threads.map { ["--search-threads", String($0)] } ?? [])
    let serverOut = Pipe()
    server.standardOutput = serverOut
    server.standardError = FileHandle.nullDevice
    do { try server.run() } catch { fail("cannot start \(heraldPath): \(error)") }
    var firstLine = Data()
    while true {
        let byte = serverOut.fileHandleForReading.readData(ofLength: 1)
        if byte.isEmpty || byte[0] == 0x0A { break }
        firstLine.append(byte)
    }
    let url = String(decoding: firstLine, as: UTF8.self)
    guard let port = url.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: CharacterSet(charactersIn: "/"))) }) else {
        server.terminate()
        fail("herald printed \(url)")
    }
    return (server, port)
}

// Two servers, one scanning on one thread (the search as it was before it was split over threads),
// one on several: the flag is a server's, not a job's.
let (serialServer, serialPort) = startServer(threads: 1, data: "\(root)/data-1")
let (parallelServer, parallelPort) = startServer(threads: options.threads, data: "\(root)/data-n")
let threadsLabel = options.threads.map(String.init) ?? "default (\(ProcessInfo.processInfo.activeProcessorCount) cores)"

func cleanUp() {
    for server in [serialServer, parallelServer] where server.isRunning {
        server.terminate()
        server.waitUntilExit()
    }
    if !options.keep { try? FileManager.default.removeItem(atPath: root) }
}

/// One search through the API. Returns (wall seconds POST→ended, job seconds finishedAt−startedAt, matches).
func heraldSearch(port: Int, caseSensitive: Bool) -> (Double, Double, Int) {
    let body = "{\"kind\":\"search\",\"params\":{\"query\":\"\(needle)\",\"caseSensitive\":\(caseSensitive)}}"
    let started = monotonicSeconds()
    let (status, answer) = http("POST", port: port, path: "/api/jobs", body: body)
    guard status == 202 || status == 201 || status == 200, let id = json(answer)["id"] as? String else {
        cleanUp()
        fail("POST /api/jobs answered \(status): \(answer)")
    }
    let deadline = started + 300
    while monotonicSeconds() < deadline {
        let (_, text) = http("GET", port: port, path: "/api/jobs/\(id)")
        let job = json(text)
        let state = job["state"] as? String ?? ""
        if ["succeeded", "failed", "cancelled", "interrupted"].contains(state) {
            let elapsed = monotonicSeconds() - started
            guard state == "succeeded" else {
                cleanUp()
                fail("search ended \(state): \(job["error"] ?? "")")
            }
            let startedAt = (job["startedAt"] as? NSNumber)?.doubleValue ?? 0
            let finishedAt = (job["finishedAt"] as? NSNumber)?.doubleValue ?? 0
            let matches = ((job["summary"] as? [String: Any])?["matches"] as? NSNumber)?.intValue ?? -1
            return (elapsed, (finishedAt - startedAt) / 1000, matches)
        }
        usleep(2000)
    }
    cleanUp()
    fail("search did not end within 300 s")
}

// Warm the page cache (and each tool) once, untimed.
_ = runTool(["sh", "-c", "find \(corpus) -type f -exec cat {} + > /dev/null"], output: "\(root)/warm.out")
_ = heraldSearch(port: serialPort, caseSensitive: true)
_ = heraldSearch(port: parallelPort, caseSensitive: true)

struct Row {
    let name: String
    var seconds: [Double] = []
    var jobSeconds: [Double] = []
    var matches = -1
}
var rows: [Row] = [
    Row(name: "herald 1 thread, case-sensitive"), Row(name: "herald 1 thread, ignore case"),
    Row(name: "herald N threads, case-sensitive"), Row(name: "herald N threads, ignore case"),
]
let grep = which("grep")
let rg = which("rg")
if grep != nil { rows.append(Row(name: "grep -rF")) }
if rg != nil {
    rows.append(Row(name: "rg -F"))
    rows.append(Row(name: "rg -F -i"))
}

for run in 0..<options.runs {
    // Interleave the tools, so that a burst of load from someone else's build hits all of them alike.
    var index = 0
    for port in [serialPort, parallelPort] {
        for caseSensitive in [true, false] {
            let (wall, job, matches) = heraldSearch(port: port, caseSensitive: caseSensitive)
            rows[index].seconds.append(wall)
            rows[index].jobSeconds.append(job)
            rows[index].matches = matches
            index += 1
        }
    }
    if grep != nil {
        let (seconds, _, output) = runTool(["grep", "-rF", needle, corpus], output: "\(root)/grep.out")
        rows[index].seconds.append(seconds)
        rows[index].matches = output.split(separator: "\n").count
        index += 1
    }
    if rg != nil {
        // rg's own defaults: a thread per core; no line numbers when its output is not a terminal.
        for flags in [["-F"], ["-F", "-i"]] {
            let (seconds, _, output) = runTool(["rg"] + flags + ["--no-messages", needle, corpus], output: "\(root)/rg.out")
            rows[index].seconds.append(seconds)
            rows[index].matches = output.split(separator: "\n").count
            index += 1
        }
    }
    note("run \(run + 1)/\(options.runs) done")
}

// Bytes herald says it scanned (also the corpus size).
let corpusBytes: Double = {
    var total = 0.0
    if let walker = FileManager.default.enumerator(atPath: corpus) {
        for case let name as String in walker {
            if let attributes = try? FileManager.default.attributesOfItem(atPath: "\(corpus)/\(name)"),
                (attributes[.type] as? FileAttributeType) == .typeRegular
            {
                total += (attributes[.size] as? NSNumber)?.doubleValue ?? 0
            }
        }
    }
    return total
}()
cleanUp()

let heraldMedian = median(rows[2].seconds)
note("\nN threads: \(threadsLabel)")
var jsonRows: [[String: Any]] = []
func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0) }
note("\n" + pad("tool", 32) + "  median s     job s      MB/s  matches  time vs herald N, case-sensitive")
for row in rows {
    let seconds = median(row.seconds)
    let jobSeconds = row.jobSeconds.isEmpty ? Double.nan : median(row.jobSeconds)
    let throughput = corpusBytes / seconds / 1e6
    note(
        pad(row.name, 32)
            + String(
                format: "  %8.3f  %8.3f  %8.0f  %7d  %6.2fx", seconds, jobSeconds, throughput,
                row.matches, seconds / heraldMedian))
    var entry: [String: Any] = [
        "tool": row.name, "median_s": seconds, "runs_s": row.seconds, "mb_per_s": throughput, "matches": row.matches,
        "time_vs_herald": seconds / heraldMedian,
    ]
    if !row.jobSeconds.isEmpty { entry["job_median_s"] = jobSeconds }
    jsonRows.append(entry)
}
let result: [String: Any] = [
    "corpus_bytes": corpusBytes, "files": fileCount, "file_bytes": fileSize, "planted": planted, "runs": options.runs,
    "threads": threadsLabel, "rows": jsonRows,
]
let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
print(String(decoding: data, as: UTF8.self))
