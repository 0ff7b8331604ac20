import HeraldEngine

/// One event of this node as the append script takes it (`ClusterScripts.append`): its encoding, the
/// job it is about (so Redis can refuse it when the job is no longer this node's), the job's record
/// when the event is a change of state, and the node's workers when they changed. A value.
struct ClusterAppend {
    let node: String
    let encoding: [UInt8]
    let job: JobID?
    let record: JobRecord?
    let workers: [WorkerInfo]?
    let settings: ClusterSettings

    init(event: SequencedEvent, node: String, settings: ClusterSettings) {
        self.node = node
        self.settings = settings
        encoding = event.json
        job = Self.job(of: event.event)
        if case .job(let record) = event.event { self.record = record } else { record = nil }
        if case .workers(let list) = event.event { workers = list } else { workers = nil }
    }

    /// The job an event is about: only its owner may append it.
    static func job(of event: EngineEvent) -> JobID? {
        switch event {
        case .job(let record): return record.id
        case .progress(let job, _), .results(let job, _), .log(let job, _, _): return job
        case .news, .workers: return nil
        }
    }

    /// The script's KEYS and ARGV (see `ClusterScripts.append`).
    func call(keys: ClusterKeys, epoch: String) -> (keys: [[UInt8]], args: [[UInt8]]) {
        let active = record.map { keys.active($0.kind.rawValue) } ?? keys.active("-")
        let names = [
            keys.epoch, keys.seq, keys.events, keys.jobs, keys.owner, keys.created, keys.finished, keys.workers, active, keys.pending,
        ]
        let args: [[UInt8]] = [
            Array(epoch.utf8), Array(node.utf8), encoding, Array((job?.rawValue ?? "").utf8),
            record.map { JSONWriter.encode($0.json) } ?? [], Array((record?.state.isTerminal == true ? "1" : "").utf8),
            Array(String(settings.streamLength).utf8), Array(String(settings.retainedFinishedJobs).utf8),
            workers.map { JSONWriter.encode(.array($0.map(\.json))) } ?? [],
        ]
        return (names.map { Array($0.utf8) }, args)
    }
}
