import HeraldServer

/// The open WebSocket connections in descriptor order, for the pass that writes one delivery to
/// (nearly) every connection (`WebSocketServer.writeNow`).
///
/// Descriptor order is the order lws's own writable pass goes in (its poll table), so the pass runs
/// when Herald says, in lws's order; and the walk is a dense array, with no hashing per connection
/// and no HTTP exchange among them.
///
/// The descriptor each id was filed under is kept, because lws may have closed the socket (and
/// forgotten its descriptor) by the time it reports the connection gone.
///
/// Thread: the service thread only (a stored property of `WebSocketServer`).
struct StreamSockets {
    struct Entry {
        let wsi: OpaquePointer
        let id: ConnectionID
    }

    /// Indexed by descriptor; nil where no WebSocket is.
    private(set) var entries: [Entry?] = []
    private var descriptors: [ConnectionID: Int] = [:]

    /// Files a connection under its descriptor (a descriptor lws reused replaces what was there).
    mutating func insert(_ wsi: OpaquePointer, id: ConnectionID, descriptor: Int32) {
        guard descriptor >= 0 else { return }
        let slot = Int(descriptor)
        if slot >= entries.count { entries.append(contentsOf: repeatElement(nil, count: max(slot + 1, entries.count * 2) - entries.count)) }
        if let previous = entries[slot] { descriptors[previous.id] = nil }
        entries[slot] = Entry(wsi: wsi, id: id)
        descriptors[id] = slot
    }

    mutating func remove(_ id: ConnectionID) {
        guard let slot = descriptors.removeValue(forKey: id) else { return }
        if entries[slot]?.id == id { entries[slot] = nil }
    }
}
