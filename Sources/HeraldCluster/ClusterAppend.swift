import HeraldEngine

/// One event of this node as the append script takes it (`ClusterScripts.append`): its encoding, the
/// job it is about (so Redis can refuse it when the job is no longer this node's), the job's record
/// when the event is a change of state, and the node's workers when they changed. A value.
struct ClusterAppend {
    let encoding: [UInt8]
    let job: JobID?
    let record: JobRecord?
    let workers: [WorkerInfo]?
    let settings: ClusterSettings
    /// For a `results` or `log` event: what to keep for pages ('results' or 'log', the cap, the bound
    /// on all finished jobs' results in bytes, the items).
    let output: [[UInt8]]

    init(event: SequencedEvent, settings: ClusterSettings) {
        self.settings = settings
        encoding = event.json
        job = Self.job(of: event.event)
        if case .job(let record) = event.event { self.record = record } else { record = nil }
        if case .workers(let list) = event.event { workers = list } else { workers = nil }
        let bound = Array(String(settings.keptResultBytes).utf8)
        switch event.event {
        case .results(_, let items):
            output = [Array("results".utf8), Array(String(settings.maxResults).utf8), bound] + items.map { JSONWriter.encode($0) }
        case .log(_, let lines, _, _):
            output = [Array("log".utf8), Array(String(settings.keptLogLines).utf8), bound] + lines.map { JSONWriter.encode($0.json) }
        default:
            output = [[], Array("0".utf8), bound]
        }
    }

    /// The job an event is about: only its owner may append it.
    static func job(of event: EngineEvent) -> JobID? {
        switch event {
        case .job(let record): return record.id
        case .progress(let job, _), .results(let job, _), .log(let job, _, _, _): return job
        case .news, .workers: return nil
        }
    }

    /// The script's KEYS and ARGV (see `ClusterScripts.append`).
    func call(keys: ClusterKeys, epoch: String) -> (keys: [[UInt8]], args: [[UInt8]]) {
        let active = record.map { keys.active($0.kind.rawValue) } ?? keys.active("-")
        let subject = job?.rawValue ?? "-"
        let names =
            [
                keys.epoch, keys.seq, keys.events, keys.jobs, keys.owner, keys.created, keys.finished, keys.workers, active, keys.pending,
                keys.results(subject), keys.log(subject), keys.logFirst(subject),
            ] + keys.leaseKeys + [keys.history, keys.archive, keys.archived, keys.resultBytes, keys.resultBytesTotal]
        let args: [[UInt8]] =
            [
                Array(epoch.utf8), Array(settings.node.utf8), encoding, Array((job?.rawValue ?? "").utf8),
                record.map { JSONWriter.encode($0.json) } ?? [], Array((record?.state.isTerminal == true ? "1" : "").utf8),
                Array(String(settings.streamLength).utf8), Array(String(settings.retainedFinishedJobs).utf8),
                workers.map { JSONWriter.encode(.array($0.map(\.json))) } ?? [], Array(keys.prefix.utf8),
                Array(String(settings.historyJobs).utf8),
            ] + output
        return (names.map { Array($0.utf8) }, args)
    }
}
