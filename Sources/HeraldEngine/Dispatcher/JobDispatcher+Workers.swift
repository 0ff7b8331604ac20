import Dispatch

/// Remote workers' messages (docs/workers.md), handed to `jobs.workers` on `queue`. Thread: any; never waits.
extension JobDispatcher {
    public func attachWorker(_ session: WorkerSession, _ hello: WorkerHello, directives: @escaping @Sendable (WorkerDirective) -> Void) {
        queue.async { [jobs] in jobs.workers.attach(session, hello, directives: directives, to: jobs) }
    }

    public func workerSent(_ session: WorkerSession, _ report: WorkerReport) {
        queue.async { [jobs] in jobs.workers.report(report, from: session, to: jobs) }
    }

    public func detachWorker(_ session: WorkerSession) {
        queue.async { [jobs] in jobs.workers.closed(session, in: jobs) }
    }
}
