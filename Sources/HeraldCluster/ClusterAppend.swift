import HeraldEngine

/// One event of this node as the append script takes it (`AppendScript.Event`, one of a batch): its encoding, the job it
/// is about (so Redis can refuse it when the job is no longer this node's), the job's record when the
/// event is a change of state, and the node's workers when they changed. A value.
struct ClusterAppend {
    let encoding: [UInt8]
    let job: JobID?
    let record: JobRecord?
    let workers: [WorkerInfo]?
    /// For a `results` or `log` event: what its items are, how many to keep, and the items.
    let kept: AppendScript.Kept?
    let cap: Int
    let items: [[UInt8]]

    init(event: SequencedEvent, settings: ClusterSettings) {
        encoding = event.json
        job = Self.job(of: event.event)
        if case .job(let record) = event.event { self.record = record } else { record = nil }
        if case .workers(let list) = event.event { workers = list } else { workers = nil }
        switch event.event {
        case .results(_, let items):
            (kept, cap, self.items) = (.results, settings.maxResults, items.map { JSONWriter.encode($0) })
        case .log(_, let lines, _, _):
            (kept, cap, items) = (.log, settings.keptLogLines, lines.map { JSONWriter.encode($0.json) })
        default:
            (kept, cap, items) = (nil, 0, [])
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

    /// The event as the append script takes it, one of a batch.
    var scriptEvent: AppendScript.Event {
        AppendScript.Event(
            encoding: encoding, job: job, record: record.map { JSONWriter.encode($0.json) }, kind: record?.kind.rawValue,
            ended: record?.state.isTerminal == true, workers: workers.map { JSONWriter.encode(.array($0.map(\.json))) }, kept: kept,
            cap: cap, items: items)
    }

    /// The script's call for a batch of one node's events, in its order, under its ticket (`retry`:
    /// the same batch was sent with this ticket before and its answer lost).
    static func call(_ batch: [ClusterAppend], settings: ClusterSettings, epoch: String, ticket: String, retry: Bool) -> AppendScript {
        AppendScript(
            keys: AppendScript.Keys(settings.keys),
            args: AppendScript.Args(
                epoch: epoch, node: settings.node, maxLength: settings.streamLength, retainedFinished: settings.retainedFinishedJobs,
                prefix: settings.keys.prefix, historyJobs: settings.historyJobs, keptResultBytes: settings.keptResultBytes,
                ticket: ticket, retry: retry, events: batch.map(\.scriptEvent)))
    }
}
