import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// The cluster's view is what makes every node deliver the same bytes: these tests check that two
/// views that began at different points of one stream agree, event by event and in their snapshots.
final class ClusterViewTests: XCTestCase {
    private func record(_ id: String, _ state: JobState = .queued, createdAt: Int64 = 1, node: String = "a") -> JobRecord {
        var record = JobRecord(id: JobID(id), kind: .search, params: ["q": "x"], createdAt: createdAt, node: node)
        if state != .queued {
            if state.isTerminal && state != .cancelled { try! record.move(to: .running) }
            try! record.move(to: state)
        }
        return record
    }

    private func worker(_ name: String, busy: Int = 0) -> WorkerInfo {
        WorkerInfo(name: name, kinds: ["build"], slots: 2, busy: busy, draining: false)
    }

    /// A mixed stream from three nodes: jobs created, progressing, ending; workers; news.
    private var stream: [(node: String, event: EngineEvent)] {
        var entries: [(String, EngineEvent)] = []
        for index in 0..<12 {
            let node = ["a", "b", "c"][index % 3]
            let id = "j-\(index)"
            entries.append((node, .job(record(id, createdAt: Int64(100 - index), node: node))))
            entries.append((node, .job(record(id, .running, createdAt: Int64(100 - index), node: node))))
            entries.append((node, .progress(job: JobID(id), JobProgress(completed: Int64(index), total: 20))))
            if index % 4 == 1 { entries.append((node, .workers([worker("\(node)-w\(index)", busy: 1)]))) }
            if index % 2 == 0 {
                entries.append((node, .job(record(id, index % 4 == 0 ? .succeeded : .failed, createdAt: Int64(100 - index), node: node))))
            }
            if index == 5 { entries.append(("b", .news(revision: 1, items: [NewsItem(id: "n1-1", time: 5, headline: "hello")]))) }
        }
        return entries
    }

    func testAViewThatJoinsLateDeliversTheSameBytesAndSnapshots() {
        let entries = stream
        var first = ClusterView(epoch: "e1", seq: 0, jobs: [], retainedFinishedJobs: 3)
        var firstFrames: [[UInt8]] = []
        var late: ClusterView?
        var lateFrames: [[UInt8]] = []
        for (offset, entry) in entries.enumerated() {
            let seq = Int64(offset + 1)
            firstFrames.append(first.apply(seq: seq, ts: seq * 7, node: entry.node, event: entry.event).json)
            if let view = late {
                var joined = view
                lateFrames.append(joined.apply(seq: seq, ts: seq * 7, node: entry.node, event: entry.event).json)
                late = joined
            }
            if seq == 20 {
                // What the bootstrap script would read now: records by creation, ends in order, workers.
                late = ClusterView(
                    epoch: "e1", seq: first.seq, jobs: first.allJobs, finished: first.finishedJobIDs, workersByNode: first.workersOfNodes,
                    retainedFinishedJobs: 3)
            }
        }
        XCTAssertEqual(lateFrames.count, entries.count - 20)
        XCTAssertEqual(Array(firstFrames.suffix(lateFrames.count)), lateFrames, "the same bytes for every event")
        XCTAssertEqual(late?.allJobs, first.allJobs, "the same jobs in the same order")
        XCTAssertEqual(late?.allWorkers, first.allWorkers)
        XCTAssertEqual(late?.seq, first.seq)
    }

    func testJobsKeepCreationOrderAndTheirLatestProgress() {
        var view = ClusterView(epoch: "e", seq: 0, jobs: [])
        _ = view.apply(seq: 1, ts: 1, node: "b", event: .job(record("j-late", createdAt: 9)))
        _ = view.apply(seq: 2, ts: 2, node: "a", event: .job(record("j-early", createdAt: 1)))
        _ = view.apply(seq: 3, ts: 3, node: "b", event: .job(record("j-late", .running, createdAt: 9)))
        _ = view.apply(seq: 4, ts: 4, node: "b", event: .progress(job: JobID("j-late"), JobProgress(completed: 3, total: 4)))
        XCTAssertEqual(view.allJobs.map(\.id.rawValue), ["j-late", "j-early"], "the order of their first events, not their clocks")
        XCTAssertEqual(view.job(JobID("j-late"))?.progress.completed, 3)
        XCTAssertEqual(view.job(JobID("j-late"))?.state, .running)
        XCTAssertEqual(view.snapshot(limits: [:]).seq, 4)
    }

    func testWorkersEventsCarryEveryNodesWorkers() {
        var view = ClusterView(epoch: "e", seq: 0, jobs: [])
        let first = view.apply(seq: 1, ts: 1, node: "b", event: .workers([worker("gpu-b")]))
        XCTAssertEqual(first.event, .workers([worker("gpu-b")]))
        let second = view.apply(seq: 2, ts: 2, node: "a", event: .workers([worker("gpu-a")]))
        XCTAssertEqual(second.event, .workers([worker("gpu-a"), worker("gpu-b")]), "every node's, by node name")
        let third = view.apply(seq: 3, ts: 3, node: "b", event: .workers([]))
        XCTAssertEqual(third.event, .workers([worker("gpu-a")]), "node b has none left")
        XCTAssertEqual(view.snapshot(limits: [:]).workers, [worker("gpu-a")])
    }

    func testFinishedJobsAreForgottenInTheOrderTheyEnded() {
        var view = ClusterView(epoch: "e", seq: 0, jobs: [], retainedFinishedJobs: 2)
        var seq: Int64 = 0
        func apply(_ event: EngineEvent) {
            seq += 1
            _ = view.apply(seq: seq, ts: seq, node: "a", event: event)
        }
        for id in ["j-1", "j-2", "j-3"] { apply(.job(record(id))) }
        apply(.job(record("j-2", .cancelled)))
        apply(.job(record("j-1", .cancelled)))
        apply(.job(record("j-3", .cancelled)))
        XCTAssertEqual(view.allJobs.map(\.id.rawValue), ["j-1", "j-3"], "j-2 ended first, so it went first")
        XCTAssertEqual(view.finishedJobIDs.map(\.rawValue), ["j-1", "j-3"])
        apply(.job(record("j-3", .cancelled)))
        XCTAssertEqual(view.finishedJobIDs.map(\.rawValue), ["j-1", "j-3"], "a repeated end is not a second end")
    }

    func testResumesNeedTheSameEpochAndKeptEvents() {
        var view = ClusterView(epoch: "e", seq: 10, jobs: [], eventLogSize: 3)
        for seq in Int64(11)...15 { _ = view.apply(seq: seq, ts: seq, node: "a", event: .news(revision: seq, items: [])) }
        XCTAssertEqual(view.events(after: 13, epoch: "e")?.map(\.seq), [14, 15])
        XCTAssertEqual(view.events(after: 15, epoch: "e")?.count, 0)
        XCTAssertNil(view.events(after: 13, epoch: "other"), "another epoch: a snapshot")
        XCTAssertNil(view.events(after: 11, epoch: "e"), "older than this node keeps")
        XCTAssertEqual(view.oldestKeptSeq, 13)
    }

    func testNewsFromAnyNodeIsAdopted() {
        var view = ClusterView(epoch: "e", seq: 0, jobs: [])
        _ = view.apply(seq: 1, ts: 1, node: "a", event: .news(revision: 3, items: [NewsItem(id: "n3-1", time: 1, headline: "one")]))
        _ = view.apply(seq: 2, ts: 2, node: "a", event: .news(revision: 4, items: [NewsItem(id: "n4-1", time: 2, headline: "two")]))
        XCTAssertEqual(view.news.revision, 4)
        XCTAssertEqual(view.news.items.map(\.headline), ["two", "one"], "newest first")
    }
}
