/// A connection (WebSocket or HTTP exchange) as the hub knows it: a number, never a pointer.
public typealias ConnectionID = Int
