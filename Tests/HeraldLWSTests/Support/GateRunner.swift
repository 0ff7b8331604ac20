import Foundation
import HeraldTestSupport
import HeraldEngine
import Synchronization

/// A test job kind the test steers: it reports `steps` progress values, streams a result per step,
/// and between steps waits for the test to open the gate (or runs freely when `free` is set).
/// Registered under a real kind (`search` by default) so the server's kind rules apply to it.
final class GateRunner: JobRunner, Sendable {
    let kind: JobKind
    let steps: Int
    private let gate = DispatchSemaphore(value: 0)
    private let free: Bool

    init(kind: JobKind = .search, steps: Int = 5, free: Bool = false) {
        self.kind = kind
        self.steps = steps
        self.free = free
    }

    func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject {
        if params["fail"] != nil, params["fail"]?.boolValue == nil { throw .badRequest(field: "fail", "must be a boolean") }
        if kind == .search, params["query"]?.stringValue?.isEmpty != false { throw .badRequest(field: "query", "required") }
        return params
    }

    /// Lets the running job take one more step.
    func step() { gate.signal() }

    func run(_ context: JobContext) throws -> JSONObject {
        for index in 1...steps {
            if !free {
                while gate.wait(timeout: .now() + .milliseconds(10)) == .timedOut {
                    try context.checkCancelled()
                }
            }
            try context.checkCancelled()
            // `pace` (microseconds per step) keeps an endless stream at a rate the server can carry.
            if let pace = context.params["pace"]?.intValue { usleep(UInt32(pace)) }
            context.progress.report(completed: Int64(index), total: Int64(steps), message: "step \(index)")
            var item: JSONObject = ["step": .int(Int64(index))]
            // `pad` makes each result bigger, for tests that must outgrow the kernel's socket buffers.
            if let pad = context.params["pad"]?.intValue { item["pad"] = .string(String(repeating: "p", count: Int(pad))) }
            context.emitResults([.object(item)])
        }
        if context.params["fail"]?.boolValue == true { throw JobFailure("failed on purpose") }
        return ["steps": .int(Int64(steps))]
    }
}
