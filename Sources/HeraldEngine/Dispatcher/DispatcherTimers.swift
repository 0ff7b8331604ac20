/// The dispatcher's repeating timers, each running only while it has work: progress sampling while
/// a job runs, lease checks while a worker is attached, background news fetches while the server
/// takes jobs. A plain value owned by the dispatcher queue.
struct DispatcherTimers {
    enum Role: Hashable {
        case progress
        case leases
        case news
    }

    private var running: [Role: any ScheduledTimer] = [:]

    /// Starts the timer of `role` unless it runs.
    mutating func start(_ role: Role, _ make: () -> any ScheduledTimer) {
        guard running[role] == nil else { return }
        running[role] = make()
    }

    mutating func stop(_ role: Role) {
        running.removeValue(forKey: role)?.cancel()
    }
}
