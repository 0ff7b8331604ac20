import HeraldServer

/// Where a service thread's deliveries go: the server's `DeliveryInbox` (one service thread), or
/// this thread's inbox of the `StreamFanOut` (several). The closures the transport hands the engine
/// and its helper queues capture it. A value of references to objects that guard themselves.
struct DeliveryRoute: Sendable {
    let inbox: DeliveryInbox
    let fanOut: StreamFanOut?
    let thread: Int

    /// Thread: any.
    func post(_ delivery: Delivery) {
        if let fanOut { fanOut.post(delivery, thread: thread) } else { inbox.post(delivery) }
    }
}
