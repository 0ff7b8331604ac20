import HeraldTestSupport
import HeraldEngine

/// What a client builds from a snapshot and the events after it: the state the dispatcher must end in.
struct StreamModel {
    private(set) var seq: Int64
    private(set) var order: [JobID]
    private(set) var records: [JobID: JobRecord]
    /// Progress newer than the last `job` event of the job.
    private var progress: [JobID: JobProgress] = [:]
    private(set) var newsRevision: Int64
    private(set) var newsItems: [NewsItem]
    private let newsCapacity: Int
    /// What did not fit the protocol, in words; empty when all was well.
    private(set) var problems: [String] = []

    init(_ snapshot: Snapshot, newsCapacity: Int = 200) {
        seq = snapshot.seq
        order = snapshot.jobs.map(\.id)
        records = Dictionary(uniqueKeysWithValues: snapshot.jobs.map { ($0.id, $0) })
        newsRevision = snapshot.news.revision
        newsItems = snapshot.news.items
        self.newsCapacity = newsCapacity
    }

    mutating func apply(_ event: SequencedEvent) {
        if event.seq != seq + 1 { problems.append("seq \(event.seq) after \(seq)") }
        seq = event.seq
        switch event.event {
        case .job(let record):
            if let previous = records[record.id] {
                if !previous.state.canMove(to: record.state) {
                    problems.append("\(record.id): \(previous.state) -> \(record.state)")
                }
            } else {
                order.append(record.id)
            }
            records[record.id] = record
            progress[record.id] = nil
        case .progress(let id, let value):
            if records[id]?.state != .running { problems.append("progress for \(id) while \(String(describing: records[id]?.state))") }
            progress[id] = value
        case .results(let id, _), .log(let id, _, _, _):
            if records[id]?.state != .running { problems.append("output for \(id) while \(String(describing: records[id]?.state))") }
        case .news(let revision, let items):
            if revision != newsRevision + 1 { problems.append("news revision \(revision) after \(newsRevision)") }
            newsRevision = revision
            newsItems = Array((items + newsItems).prefix(newsCapacity))
        case .workers:
            break
        }
    }

    mutating func apply(_ events: [SequencedEvent]) { for event in events { apply(event) } }

    /// The job as the model knows it, with its newest progress.
    func job(_ id: JobID) -> (record: JobRecord, progress: JobProgress)? {
        records[id].map { ($0, progress[id] ?? $0.progress) }
    }

    /// How the model differs from `snapshot`, in words; empty when it matches.
    func differences(from snapshot: Snapshot) -> [String] {
        var found = problems
        if seq != snapshot.seq { found.append("model at seq \(seq), dispatcher at \(snapshot.seq)") }
        if order != snapshot.jobs.map(\.id) { found.append("job order differs") }
        for expected in snapshot.jobs {
            guard let (record, progress) = job(expected.id) else { found.append("\(expected.id) missing"); continue }
            if record.state != expected.state || record.error != expected.error || record.summary != expected.summary
                || record.startedAt != expected.startedAt || record.finishedAt != expected.finishedAt
                || record.params != expected.params || record.after != expected.after
            {
                found.append("\(expected.id): model \(record) vs \(expected)")
            }
            if progress != expected.progress { found.append("\(expected.id): progress \(progress) vs \(expected.progress)") }
        }
        if newsRevision != snapshot.news.revision { found.append("news revision \(newsRevision) vs \(snapshot.news.revision)") }
        if newsItems != snapshot.news.items { found.append("news items differ") }
        return found
    }
}
