import Foundation
import HeraldTestSupport

@testable import HeraldEngine

/// Collects what a job streams when it runs without a dispatcher. Thread: any.
final class CollectingSink: JobEventSink {
    private let items = Locked<[JSONValue]>([])

    func results(job: JobID, items: [JSONValue]) { self.items.withLock { $0.append(contentsOf: items) } }
    func news(job: JobID, headlines: [String]) {}
    func log(job: JobID, lines: [LogLine], skipped: Int, first: Int) {}
    func uncoalescedProgress(job: JobID, _ progress: JobProgress) -> Bool { true }

    var all: [JSONValue] { items.value }
}

/// A job context with no dispatcher behind it, for driving a runner's parts (a scan, a bar) directly.
func makeStandaloneContext(
    _ kind: JobKind, searchRoot: URL, maxSearchResults: Int = 1000, sink: CollectingSink = CollectingSink()
) -> JobContext {
    let environment = JobEnvironment(
        searchRoot: searchRoot, dataDirectory: searchRoot, newsSource: NewsSource(probability: 0, seed: 1),
        maxSearchResults: maxSearchResults)
    return JobContext(
        record: JobRecord(id: JobID("j-standalone"), kind: kind, params: [:], createdAt: 0), environment: environment,
        progress: ProgressReporter {}, sink: sink)
}
