internal import CLibWebSockets

/// The libwebsockets timer that drives the hub's keepalive sweep, and the C callback it calls.
/// One timer for the whole context (not one per connection, which is what made lws's own validity
/// policy costly). Thread: the service thread: made, scheduled, fired and released there.
final class KeepaliveTimer {
    private let timer: UnsafeMutablePointer<herald_timer>

    /// `owner` is the `WebSocketServer`, unretained: it outlives its service thread's context.
    init(owner: UnsafeMutableRawPointer) {
        timer = .allocate(capacity: 1)
        timer.initialize(to: herald_timer())
        timer.pointee.owner = owner
    }

    /// Fires `heraldKeepaliveTick` once, `seconds` from now, inside `lws_service`.
    func schedule(on context: OpaquePointer, after seconds: Double) {
        lws_sul_schedule(context, 0, herald_timer_entry(timer), heraldKeepaliveTick, lws_usec_t(seconds * 1_000_000))
    }

    /// Unschedules it (before `lws_context_destroy`) and frees it.
    func release() {
        lws_sul_cancel(herald_timer_entry(timer))
        timer.deinitialize(count: 1)
        timer.deallocate()
    }
}

/// The timer's C callback: runs on the service thread, inside `lws_service`.
func heraldKeepaliveTick(_ entry: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {
    guard let entry, let owner = herald_timer_owner(entry) else { return }
    Unmanaged<WebSocketServer>.fromOpaque(owner).takeUnretainedValue().keepaliveTick()
}
