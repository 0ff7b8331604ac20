import Dispatch
import Foundation
import HeraldTestSupport
import HeraldEngine
import Synchronization

/// A test job runner of any kind whose work is a closure: it can block on a `Gate`, loop reporting
/// progress, stream results, fail with `JobFailure`, or notice a cancel.
struct ScriptedRunner: JobRunner {
    let kind: JobKind
    private let body: @Sendable (JobContext) throws -> JSONObject
    private let validation: @Sendable (JSONObject) throws(EngineError) -> JSONObject

    init(
        _ kind: JobKind,
        validate: @escaping @Sendable (JSONObject) throws(EngineError) -> JSONObject = { $0 },
        body: @escaping @Sendable (JobContext) throws -> JSONObject
    ) {
        self.kind = kind
        self.validation = validate
        self.body = body
    }

    func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject {
        try validation(params)
    }

    func run(_ context: JobContext) throws -> JSONObject { try body(context) }
}

extension JobContext {
    /// The `tag` param tests give their jobs, to tell them apart in a runner's body.
    var tag: String { params["tag"]?.stringValue ?? "" }
}

/// A barrier a job waits at until the test opens it; a cancel releases the job with `JobCancelled`.
final class Gate: Sendable {
    private let opened = Atomic<Bool>(false)
    private let semaphore = DispatchSemaphore(value: 0)

    func open() {
        opened.store(true, ordering: .sequentiallyConsistent)
        semaphore.signal()
    }

    var isOpen: Bool { opened.load(ordering: .sequentiallyConsistent) }

    /// Blocks the job until the gate opens; throws `JobCancelled` if the job is cancelled first.
    func pass(_ context: JobContext) throws(JobCancelled) {
        while !isOpen {
            try context.checkCancelled()
            // A cancel sets a flag and wakes nobody, so look again now and then, like a real job.
            if semaphore.wait(timeout: .now() + .milliseconds(5)) == .success { semaphore.signal() }
        }
    }
}

/// The tags of the jobs whose `run` began, in order. Thread: any.
final class RunLog: Sendable {
    private let tags = Locked<[String]>([])

    func note(_ tag: String) { tags.withLock { $0.append(tag) } }

    var all: [String] { tags.value }
}

/// The dispatcher's answer unwrapped, for assertions.
extension Result {
    var value: Success? { if case .success(let value) = self { return value } else { return nil } }
    var error: Failure? { if case .failure(let error) = self { return error } else { return nil } }
}

/// One `Gate` per tag, made on first use, so a test can open the gate of the job it names.
final class GateBook: Sendable {
    private let gates = Locked<[String: Gate]>([:])

    func gate(_ tag: String) -> Gate {
        gates.withLock { gates in
            if let gate = gates[tag] { return gate }
            let gate = Gate()
            gates[tag] = gate
            return gate
        }
    }

    func open(_ tag: String) { gate(tag).open() }
}

extension ScriptedRunner {
    /// A runner whose behaviour is spelled by each job's `tag`: it notes the tag in `log`, then
    /// - with `wait` in the tag, blocks at the tag's gate in `gates` (a cancel ends it with `JobCancelled`);
    /// - with `spin`, reports progress about every half millisecond until cancelled, then throws `JobCancelled`;
    /// - with `ignore`, waits for a cancel without reporting it and returns normally;
    /// - with `fail`, then throws `JobFailure("<tag> broke")`;
    /// and otherwise succeeds with the summary `{"tag": tag}`.
    static func tagged(_ kind: JobKind, gates: GateBook, log: RunLog) -> ScriptedRunner {
        ScriptedRunner(kind) { context in
            let tag = context.tag
            log.note(tag)
            if tag.contains("wait") { try gates.gate(tag).pass(context) }
            if tag.contains("spin") {
                var completed: Int64 = 0
                while !context.isCancelled {
                    completed += 1
                    context.progress.report(completed: completed, total: 0)
                    usleep(500)
                }
                throw JobCancelled()
            }
            if tag.contains("ignore") {
                while !context.isCancelled { usleep(500) }
            }
            if tag.contains("fail") { throw JobFailure("\(tag) broke") }
            return ["tag": .string(tag)]
        }
    }
}
