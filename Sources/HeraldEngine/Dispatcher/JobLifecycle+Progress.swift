import Dispatch
import HeraldSupport

/// Progress pacing, kept results and background news fetches. Every function here runs on `queue`.
extension JobLifecycle {
    /// Samples one running job and emits its progress if the coalescer allows. The coalescer lets
    /// the first value through at once (the `onFirstReport` hop) and the final one always (`final`,
    /// from `finish`).
    func sampleProgress(of id: JobID, final: Bool) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard var job = runs[id], job.context.progress.hasAnyReport else { return }
        let emitted = job.coalescer.offer(job.context.progress.sample(), now: clock.now(), final: final)
        runs[id] = job
        guard let emitted else { return }
        table[id]?.progress = emitted
        statistics.progressEvents += 1
        emit(.progress(job: id, emitted))
    }

    /// Samples every run while any runs; `finish` stops it when none is left.
    func startProgressTimer() {
        // Ticking at half the minimum interval keeps each job's bars fresh without exceeding the bound.
        let interval = max(0.005, 0.5 / max(0.1, configuration.progressEventsPerSecond))
        timers.start(.progress) {
            clock.schedule(on: queue, after: interval, repeating: interval) { [weak self] in
                guard let self else { return }
                for id in self.runs.ids { self.sampleProgress(of: id, final: false) }
            }
        }
    }

    /// Keeps results for paging up to the search cap and streams them; beyond the cap they are
    /// streamed but not kept, so a job that streams without end cannot grow memory without end.
    func keepAndEmitResults(job: JobID, items: [JSONValue]) {
        let kept = table.results.count(of: job)
        if kept < environment.maxSearchResults {
            table.results.append(items.prefix(environment.maxSearchResults - kept), for: job)
        }
        emit(.results(job: job, items: items))
    }

    func startNewsTimer(every seconds: Double) {
        timers.start(.news) {
            clock.schedule(on: queue, after: seconds, repeating: seconds) { [weak self] in
                guard let self, !self.isShuttingDown, self.cluster.backgroundFetchGate?() ?? true else { return }
                // One background fetch at a time: skip the tick if one is still queued or running.
                let busy = self.table.all.contains { $0.kind == .fetch && !$0.state.isTerminal }
                if !busy { _ = self.startOnQueue(StartRequest(kind: JobKind.fetch.rawValue, params: ["background": true])) }
            }
        }
    }
}
