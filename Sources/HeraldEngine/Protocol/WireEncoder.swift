/// Encodes the server's side of the wire protocol (docs/protocol.md). Pure functions, no state.
public enum WireEncoder {
    public static let protocolVersion: Int64 = 1

    /// An event's wire encoding. A `progress` event (the one the stream carries most of, up to
    /// hundreds of thousands a second from one ticker) is written by hand, field by field
    /// (`WireEncoder+Progress`); every other event is written from `object(event:seq:ts:)`. Both give
    /// the same bytes (`WireEncoderFastPathTests` checks it on many random events).
    public static func encode(event: EngineEvent, seq: Int64, ts: Int64) -> [UInt8] {
        if case .progress(let job, let progress) = event { return encodeProgress(job: job, progress, seq: seq, ts: ts) }
        return JSONWriter.encode(.object(object(event: event, seq: seq, ts: ts)))
    }

    /// The event as a JSON object: the definition of each event's fields and their order
    /// (docs/protocol.md). `encode(event:seq:ts:)` writes exactly what `JSONWriter` writes for it.
    public static func object(event: EngineEvent, seq: Int64, ts: Int64) -> JSONObject {
        var object: JSONObject
        switch event {
        case .job(let record):
            object = ["type": "job", "seq": .int(seq), "ts": .int(ts), "job": record.json]
        case .progress(let job, let progress):
            object = ["type": "progress", "seq": .int(seq), "ts": .int(ts), "job": .string(job.rawValue)]
            progress.write(into: &object)
        case .results(let job, let items):
            object = ["type": "results", "seq": .int(seq), "ts": .int(ts), "job": .string(job.rawValue), "items": .array(items)]
        case .news(let revision, let items):
            object = ["type": "news", "seq": .int(seq), "ts": .int(ts), "revision": .int(revision), "items": .array(items.map(\.json))]
        case .log(let job, let lines, let skipped, let first):
            object = [
                "type": "log", "seq": .int(seq), "ts": .int(ts), "job": .string(job.rawValue), "first": .int(Int64(first)),
                "lines": .array(lines.map(\.json)),
            ]
            if skipped > 0 { object["skipped"] = .int(Int64(skipped)) }
        case .workers(let workers):
            object = ["type": "workers", "seq": .int(seq), "ts": .int(ts), "workers": .array(workers.map(\.json))]
        }
        return object
    }

    /// Why a snapshot is being sent: on connect, for a resume that could not be served from the log,
    /// or to replace a slow client's backlog.
    public enum SnapshotReason: String, Sendable {
        case connect, resume, resync
    }

    /// A snapshot's wire encoding: the bytes `JSONWriter` writes for `object(snapshot:reason:extraLimits:)`,
    /// written one job at a time. As one tree, a snapshot of the 500 jobs a server keeps is about a
    /// megabyte of small dictionaries, made and freed again for every snapshot (every connect and every
    /// resync); here only one job's record exists as a tree at a time (`WireEncoderFastPathTests` checks that
    /// both give the same bytes).
    /// `scope`: set for a connection that sees only some jobs (docs/security.md): which, so a client
    /// knows why its stream's `seq` has holes.
    public static func encode(snapshot: Snapshot, reason: SnapshotReason, extraLimits: JSONObject = [:], scope: JSONObject? = nil)
        -> [UInt8]
    {
        var out: [UInt8] = []
        out.reserveCapacity(4096 + 400 * snapshot.jobs.count)
        JSONWriter.write(.object(header(of: snapshot, reason: reason)), into: &out)
        out.removeLast()  // its closing brace: the object goes on
        JSONWriter.writeRaw(",\"jobs\":[", into: &out)
        for (index, record) in snapshot.jobs.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.write(record.json, into: &out)
        }
        JSONWriter.writeRaw("],\"news\":", into: &out)
        JSONWriter.write(snapshot.news.json, into: &out)
        JSONWriter.writeRaw(",\"limits\":", into: &out)
        JSONWriter.write(.object(limits(of: snapshot, extraLimits: extraLimits)), into: &out)
        JSONWriter.writeRaw(",\"workers\":", into: &out)
        JSONWriter.write(.array(snapshot.workers.map(\.json)), into: &out)
        if let scope {
            JSONWriter.writeRaw(",\"scope\":", into: &out)
            JSONWriter.write(.object(scope), into: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The snapshot as a JSON object: the definition of its fields and their order (docs/protocol.md).
    public static func object(snapshot: Snapshot, reason: SnapshotReason, extraLimits: JSONObject = [:]) -> JSONObject {
        var object = header(of: snapshot, reason: reason)
        object["jobs"] = .array(snapshot.jobs.map(\.json))
        object["news"] = snapshot.news.json
        object["limits"] = .object(limits(of: snapshot, extraLimits: extraLimits))
        object["workers"] = .array(snapshot.workers.map(\.json))
        return object
    }

    /// The snapshot's first fields, before its jobs.
    private static func header(of snapshot: Snapshot, reason: SnapshotReason) -> JSONObject {
        [
            "type": "snapshot", "protocol": .int(protocolVersion), "reason": .string(reason.rawValue),
            "epoch": .string(snapshot.epoch), "seq": .int(snapshot.seq),
        ]
    }

    /// The snapshot's limits, with the serving hub's (`extraLimits`) set over them.
    private static func limits(of snapshot: Snapshot, extraLimits: JSONObject) -> JSONObject {
        var limits = snapshot.limits
        for (key, value) in extraLimits.entries { limits[key] = value }
        return limits
    }

    public static func accepted(requestId: String?, job: JobRecord) -> [UInt8] {
        var object: JSONObject = ["type": "accepted"]
        if let requestId { object["requestId"] = .string(requestId) }
        object["job"] = .string(job.id.rawValue)
        object["state"] = .string(job.state.rawValue)
        return JSONWriter.encode(.object(object))
    }

    public static func error(_ error: EngineError, requestId: String?) -> [UInt8] {
        var object: JSONObject = ["type": "error"]
        if let requestId { object["requestId"] = .string(requestId) }
        object["code"] = .string(error.code.rawValue)
        object["message"] = .string(error.message)
        return JSONWriter.encode(.object(object))
    }

    public static func page(_ page: ResultPage, job: JobID, requestId: String?) -> [UInt8] {
        var object: JSONObject = ["type": "page"]
        if let requestId { object["requestId"] = .string(requestId) }
        object["job"] = .string(job.rawValue)
        object["offset"] = .int(Int64(page.offset))
        object["total"] = .int(Int64(page.total))
        object[page.isLog ? "lines" : "values"] = .array(page.values)
        if page.isLog { object["first"] = .int(Int64(page.first)) }
        return JSONWriter.encode(.object(object))
    }

    /// The `schedules` command's answer: the objects of `GET /api/schedules`.
    public static func schedules(_ schedules: [ScheduleStatus], requestId: String?) -> [UInt8] {
        var object: JSONObject = ["type": "schedules"]
        if let requestId { object["requestId"] = .string(requestId) }
        object["schedules"] = .array(schedules.map(\.json))
        return JSONWriter.encode(.object(object))
    }

    /// The `schedule` command's answer: the schedule after the pause, resume or run.
    public static func schedule(_ schedule: ScheduleStatus, requestId: String?) -> [UInt8] {
        var object: JSONObject = ["type": "schedule"]
        if let requestId { object["requestId"] = .string(requestId) }
        object["schedule"] = schedule.json
        return JSONWriter.encode(.object(object))
    }

    public static let pong: [UInt8] = JSONWriter.encode(["type": "pong"])

    /// This node's health (docs/protocol.md, "health"): `degraded` with its reason, or `ok`.
    public static func health(degraded reason: String?) -> [UInt8] {
        guard let reason else { return JSONWriter.encode(["type": "health", "status": "ok"]) }
        return JSONWriter.encode(["type": "health", "status": "degraded", "reason": .string(reason)])
    }
}
