// libFuzzer target for the command decoder: every WebSocket text message a client sends goes through
// `CommandDecoder.decode` (Sources/HeraldEngine/Protocol/CommandDecoder.swift), so it must take any
// bytes without crashing. Built by `fuzz/run` into the same module as HeraldEngine's sources (internal
// names are visible), with -sanitize=fuzzer,address. Besides "no crash", it checks what the server
// relies on next: the answer is deterministic, an error reply encodes to JSON that parses back to the
// same code and request id, a decoded command keeps its documented bounds, a start's params either
// validate or are refused with an error (never a trap), and JSON that parses survives a write and
// re-parse unchanged. The same bytes also go to `WireDecoder.event`, as an event read from another
// node's stream would: refused, or an event whose encoding decodes and encodes again unchanged.
// A broken property traps (precondition), which libFuzzer reports as a crash.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func heraldFuzzCommand(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    CommandFuzzCheck.check(bytes)
    return 0
}

enum CommandFuzzCheck {
    /// A search root and data folder for `validate` (search resolves `path` against real folders).
    static let environment: JobEnvironment = {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("herald-fuzz-\(getpid())")
        let root = base.appendingPathComponent("root")
        for folder in ["src", "src/deep", "docs"] {
            try? FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let data = root.appendingPathComponent("data")
        try? FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try? FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("out").path, withDestinationPath: "/tmp")
        return JobEnvironment(searchRoot: root, dataDirectory: data, newsSource: NewsSource(probability: 0.5, seed: 1))
    }()

    static let runners: [String: any JobRunner] = Dictionary(
        uniqueKeysWithValues: JobCatalog.standardRunners().map { ($0.kind.rawValue, $0) })

    static func check(_ bytes: [UInt8]) {
        let result = CommandDecoder.decode(bytes)
        precondition(result == CommandDecoder.decode(bytes), "decode is not deterministic")
        switch result {
        case .failure(let refusal):
            checkErrorReply(refusal)
        case .success(let command):
            checkBounds(command)
        }
        checkRoundTrip(bytes)
        checkEvent(bytes)
    }

    /// An event from a shared stream: refused in words, or an event whose encoding (the canonical
    /// form) decodes to the same event and encodes to the same bytes again.
    static func checkEvent(_ bytes: [UInt8]) {
        let decoded: (seq: Int64, ts: Int64, event: EngineEvent)
        do { decoded = try WireDecoder.event(bytes) } catch {
            precondition(!error.message.isEmpty, "an event refused without words")
            return
        }
        let canonical = WireEncoder.encode(event: decoded.event, seq: decoded.seq, ts: decoded.ts)
        guard let again = try? WireDecoder.event(canonical) else {
            preconditionFailure("an encoded event is refused: \(String(decoding: canonical, as: UTF8.self))")
        }
        precondition(again.seq == decoded.seq && again.ts == decoded.ts && again.event == decoded.event, "an event changed in a round trip")
        precondition(
            WireEncoder.encode(event: again.event, seq: again.seq, ts: again.ts) == canonical, "an event encoded differently twice")
    }

    /// What the server sends back for a refused command must itself be valid JSON with the same facts.
    static func checkErrorReply(_ refusal: CommandDecoder.Refusal) {
        let reply = WireEncoder.error(refusal.error, requestId: refusal.requestId)
        guard case .object(let object)? = try? JSONParser.parse(reply, maxDepth: 4) else {
            preconditionFailure("the error reply is not a JSON object: \(String(decoding: reply, as: UTF8.self))")
        }
        precondition(object["type"] == .string("error"))
        precondition(object["code"] == .string(refusal.error.code.rawValue))
        precondition(object["requestId"]?.stringValue == refusal.requestId, "requestId changed in the reply")
        precondition(!refusal.error.message.isEmpty, "an error without words")
    }

    static func checkBounds(_ command: Command) {
        switch command {
        case .start(let request):
            precondition(request.after.count <= 64 && request.after.allSatisfy(JobID.isWellFormed))
            if let runner = runners[request.kind] {
                // Either normalised params (which must encode and parse back) or a refusal; never a trap.
                if let params = try? runner.validate(request.params, environment: environment) {
                    let encoded = JSONWriter.encode(.object(params))
                    guard let again = try? JSONParser.parse(encoded) else {
                        preconditionFailure("validated params do not re-parse: \(String(decoding: encoded, as: UTF8.self))")
                    }
                    precondition(equivalent(again, .object(params)), "validated params changed in a round trip")
                }
            }
        case .cancel(let job, _):
            precondition(JobID.isWellFormed(job))
        case .resume(let epoch, let since):
            precondition(epoch.utf8.count <= 64 && since >= 0)
        case .page(let job, let offset, let limit, _):
            precondition(JobID.isWellFormed(job) && offset >= 0 && offset <= Int(Int32.max) && (1...10_000).contains(limit))
        case .auth(let token, _):
            precondition(!token.isEmpty && token.utf8.count <= 1024)
        case .ping, .schedules:
            break
        case .schedule(let name, _, _):
            precondition((1...CommandDecoder.maxScheduleNameBytes).contains(name.utf8.count))
        case .hello(let hello):
            precondition(!hello.name.isEmpty && hello.name.utf8.count <= 64 && (1...WorkerHello.maxSlots).contains(hello.slots))
            precondition(!hello.kinds.isEmpty && hello.kinds.count <= WorkerHello.maxKinds)
            // A hello encodes to a message that decodes to the same hello (numbers compared by value).
            guard case .success(.hello(let again)) = CommandDecoder.decode(hello.json) else {
                preconditionFailure("a hello's own message is refused: \(String(decoding: hello.json, as: UTF8.self))")
            }
            precondition(equivalent(parsed(again.json), parsed(hello.json)), "a hello changed in a round trip")
        case .worker(let report):
            if let (job, attempt) = report.target { precondition(JobID.isWellFormed(job.rawValue) && attempt >= 1) }
            // What a worker sends decodes to what it meant.
            guard case .success(.worker(let again)) = CommandDecoder.decode(report.json) else {
                preconditionFailure("a worker report's own message is refused: \(String(decoding: report.json, as: UTF8.self))")
            }
            precondition(equivalent(parsed(again.json), parsed(report.json)), "a worker report changed in a round trip")
        }
    }

    /// A message the server or a worker wrote, parsed (it must parse).
    static func parsed(_ bytes: [UInt8]) -> JSONValue {
        guard let value = try? JSONParser.parse(bytes, maxDepth: 64) else {
            preconditionFailure("an encoded message does not parse: \(String(decoding: bytes, as: UTF8.self))")
        }
        return value
    }

    /// Whatever parses must survive JSONWriter and a second parse exactly (a double stays a double),
    /// and be written the same way again.
    static func checkRoundTrip(_ bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes, maxDepth: CommandDecoder.maxDepth) else { return }
        let encoded = JSONWriter.encode(value)
        guard let again = try? JSONParser.parse(encoded, maxDepth: CommandDecoder.maxDepth) else {
            preconditionFailure("written JSON does not parse: \(String(decoding: encoded, as: UTF8.self))")
        }
        precondition(value == again, "JSON changed in a write/parse round trip")
        precondition(JSONWriter.encode(again) == encoded, "JSON written differently twice")
    }

    static func equivalent(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.int, .int), (.int, .double), (.double, .int), (.double, .double):
            if case .int(let x) = a, case .int(let y) = b { return x == y }
            return a.doubleValue == b.doubleValue
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equivalent($0, $1) }
        case (.object(let x), .object(let y)):
            return x.keys == y.keys && x.keys.allSatisfy { equivalent(x[$0]!, y[$0]!) }
        default:
            return a == b
        }
    }
}
