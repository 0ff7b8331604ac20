/// What the engine tells one attached worker (docs/workers.md). The server turns each into a
/// message on that worker's connection; `drop` closes it.
public enum WorkerDirective: Sendable, Equatable {
    /// The `hello` was taken: the worker may be assigned jobs, and must send something every
    /// `lease` seconds (a `beat` at a third of it). Says `answersBeats`: each `beat` is answered.
    case accepted(name: String, lease: Int)
    /// The answer to a worker's `beat`: the server had its lease renewed when it read the beat, so a
    /// worker knows how long its runs are surely still its own (docs/workers.md, self-fencing).
    case beat
    /// Run this job (its object: id, kind, validated params, attempt) as attempt `attempt`.
    case assign(JobRecord, attempt: Int, lease: Int)
    /// End this attempt: kill the program's process group, then answer `fail` with `cancelled`.
    case cancel(job: JobID, attempt: Int)
    /// A refusal: of the `hello` (then the worker is not attached) or of one report (`job` and
    /// `attempt` say which; `lease_lost` means: kill that run, it is no longer yours).
    case error(EngineError, job: JobID?, attempt: Int?)
    /// The worker's lease ran out: the server closes the connection (close code 4009).
    case drop(reason: String)

    /// The message's bytes; nil for `drop`, which is a close, not a message.
    public var json: [UInt8]? {
        switch self {
        case .accepted(let name, let lease):
            return JSONWriter.encode([
                "type": "accepted", "role": "worker", "name": .string(name), "lease": .int(Int64(lease)), "answersBeats": true,
            ])
        case .beat:
            return JSONWriter.encode(["type": "beat"])
        case .assign(let record, let attempt, let lease):
            return JSONWriter.encode(["type": "assign", "job": record.json, "attempt": .int(Int64(attempt)), "lease": .int(Int64(lease))])
        case .cancel(let job, let attempt):
            return JSONWriter.encode(["type": "cancel", "job": .string(job.rawValue), "attempt": .int(Int64(attempt))])
        case .error(let error, let job, let attempt):
            var object: JSONObject = ["type": "error", "code": .string(error.code.rawValue), "message": .string(error.message)]
            if let job { object["job"] = .string(job.rawValue) }
            if let attempt { object["attempt"] = .int(Int64(attempt)) }
            return JSONWriter.encode(.object(object))
        case .drop:
            return nil
        }
    }
}
