import Dispatch
import HeraldSupport

/// Progress pacing, streamed results and news: the parts workers reach through `JobEventSink`.
extension JobDispatcher: JobEventSink {
    /// Most uncoalesced progress hops allowed in flight before a ticker is told to slow down.
    static let uncoalescedLimit = 4096

    /// Samples one running job and emits its progress if the coalescer allows. Thread: `queue`.
    /// The coalescer lets the first value through at once (the `onFirstReport` hop) and the final one
    /// always (`final`, from `finish`).
    func sampleProgress(of id: JobID, final: Bool) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard var job = running[id], job.context.progress.hasAnyReport else { return }
        let sample = job.context.progress.sample()
        guard let emitted = job.coalescer.offer(sample, now: clock.now(), final: final) else {
            running[id] = job
            return
        }
        running[id] = job
        table[id]?.progress = emitted
        statistics.progressEvents += 1
        emit(.progress(job: id, emitted))
    }

    func startProgressTimerIfNeeded() {
        guard progressTimer == nil else { return }
        // Ticking at half the minimum interval keeps each job's bars fresh without exceeding the bound.
        let interval = max(0.005, 0.5 / max(0.1, configuration.progressEventsPerSecond))
        progressTimer = clock.schedule(on: queue, after: interval, repeating: interval) { [weak self] in
            guard let self else { return }
            for id in self.running.keys { self.sampleProgress(of: id, final: false) }
        }
    }

    func stopProgressTimer() {
        progressTimer?.cancel()
        progressTimer = nil
    }

    // MARK: JobEventSink (called on worker threads; each hops onto `queue`, bounded by `hops`)

    func results(job: JobID, items: [JSONValue]) {
        hops.enter()
        queue.async { [self] in
            defer { hops.leave() }
            guard running[job] != nil else { return }
            keepAndEmitResults(job: job, items: items)
        }
    }

    /// Keeps results for paging up to the search cap and streams them; beyond the cap they are
    /// streamed but not kept, so a job that streams without end cannot grow memory without end.
    /// Thread: `queue`.
    func keepAndEmitResults(job: JobID, items: [JSONValue]) {
        let kept = table.results.count(of: job)
        if kept < environment.maxSearchResults {
            table.results.append(items.prefix(environment.maxSearchResults - kept), for: job)
        }
        emit(.results(job: job, items: items))
    }

    func news(job: JobID, headlines: [String]) {
        hops.enter()
        queue.async { [self] in
            defer { hops.leave() }
            // A fetch that was cancelled meanwhile publishes nothing.
            guard running[job] != nil, !cancelRequested.contains(job) else { return }
            let added = news.append(headlines, at: WallClock.millis())
            emit(.news(revision: news.revision, items: added))
        }
    }

    func log(job: JobID, lines: [LogLine], skipped: Int, first: Int) {
        hops.enter()
        queue.async { [self] in
            defer { hops.leave() }
            guard running[job] != nil else { return }
            emit(.log(job: job, lines: lines, skipped: skipped, first: first))
        }
    }

    /// One hop onto `queue` per batch, not per event: values wait in `pendingTicks`, and the first
    /// value of a batch schedules the hop that numbers them all.
    func uncoalescedProgress(job: JobID, _ progress: JobProgress) -> Bool {
        guard uncoalescedInFlight.add(1, ordering: .relaxed).newValue <= Self.uncoalescedLimit else {
            uncoalescedInFlight.subtract(1, ordering: .relaxed)
            return false
        }
        let startsBatch = pendingTicks.withLock { pending in
            pending.append((job, progress))
            return pending.count == 1
        }
        if startsBatch { queue.async { [self] in emitPendingTicks() } }
        return true
    }

    /// Thread: `queue`. A batch is nearly always one job's values: the job is looked up once per run
    /// of values of the same job, and its record takes the last of them (nothing reads the record
    /// between these emits), instead of two dictionary lookups per value.
    private func emitPendingTicks() {
        let batch = pendingTicks.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        uncoalescedInFlight.subtract(batch.count, ordering: .relaxed)
        var start = batch.startIndex
        while start < batch.endIndex {
            let job = batch[start].0
            var end = start + 1
            while end < batch.endIndex, batch[end].0 == job { end += 1 }
            if running[job] != nil {
                for (_, progress) in batch[start..<end] { emit(.progress(job: job, progress)) }
                statistics.progressEvents += end - start
                table[job]?.progress = batch[end - 1].1
            }
            start = end
        }
    }

    // MARK: Background news fetches

    /// Background fetches (`--news-interval`) happen only while `gate` says so. Thread: any.
    public func gateBackgroundFetches(_ gate: @escaping @Sendable () -> Bool) {
        queue.async { self.cluster.backgroundFetchGate = gate }
    }

    func startNewsTimer(every seconds: Double) {
        newsTimer = clock.schedule(on: queue, after: seconds, repeating: seconds) { [weak self] in
            guard let self, !self.isShuttingDown, self.cluster.backgroundFetchGate?() ?? true else { return }
            // One background fetch at a time: skip the tick if one is still queued or running.
            let busy = self.table.all.contains { $0.kind == .fetch && !$0.state.isTerminal }
            if !busy { _ = self.startOnQueue(StartRequest(kind: JobKind.fetch.rawValue, params: ["background": true])) }
        }
    }
}
