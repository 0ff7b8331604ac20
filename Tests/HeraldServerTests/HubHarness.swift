import HeraldAccess
import HeraldEngine
import HeraldTestSupport
import XCTest
@testable import HeraldServer

/// A hub driven by hand: handshakes, deliveries, messages and writes, with the actions it asks for
/// collected, and what a connection would be sent decoded.
struct HubHarness {
    var hub: StreamHub
    var actions: [HubAction] = []
    var buffer: [UInt8] = []
    var now = 0.0
    /// The wall clock the transport would pass to `writable` (microseconds since 1970).
    var nowMicros: Int64 = 0

    init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) {
        var configuration = ServerConfiguration()
        configure(&configuration)
        hub = StreamHub(configuration: configuration, epoch: "e1", logger: Logger(level: .error), version: "test")
    }

    /// The actions since the last call.
    mutating func take() -> [HubAction] {
        defer { actions = [] }
        return actions
    }

    mutating func connect(_ id: ConnectionID, query: [String: String] = [:], authorization: String? = nil, peer: String = "127.0.0.1") {
        XCTAssertEqual(
            hub.handshake(id, Handshake(path: "/ws", host: "h", query: query, authorization: authorization, peer: peer)), .accept)
        hub.opened(id, now: now, into: &actions)
    }

    /// Connects and delivers the connection's first snapshot, which is read off: the stream is live.
    mutating func connectLive(_ id: ConnectionID, authorization: String? = nil, peer: String = "127.0.0.1") {
        connect(id, authorization: authorization, peer: peer)
        deliver([.answer(.snapshot(generation: 0), .snapshot(Snapshot(epoch: "e1", seq: 0, jobs: [], news: NewsFeed(), limits: [:])))])
        XCTAssertEqual(written(id).messages.first?["type"]?.stringValue, "snapshot")
    }

    mutating func deliver(_ deliveries: [Delivery], overflowed: Bool = false, streamReset: Bool = false, stop: Bool = false) {
        let drained = DeliveryInbox.Drained(
            overflowed: overflowed, streamReset: streamReset, replies: deliveries.filter { !$0.isOrdered },
            ordered: deliveries.filter(\.isOrdered), more: false,
            stopRequested: stop)
        hub.deliver(drained, now: now, into: &actions)
    }

    mutating func send(_ id: ConnectionID, _ text: String, isBinary: Bool = false) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { hub.received(id, $0, isBinary: isBinary, isFinal: true, now: now, into: &actions) }
    }

    /// Everything the connection would write now, as JSON objects, and how the last step ended.
    mutating func written(_ id: ConnectionID) -> (messages: [JSONValue], end: WriteStep) {
        var messages: [JSONValue] = []
        while true {
            let step = hub.writable(id, nowMicros: nowMicros, into: &buffer, actions: &actions)
            guard case .write(_, let more) = step else { return (messages, step) }
            messages += Self.payloads(buffer).map { try! JSONParser.parse($0) }
            if !more { return (messages, .idle) }
        }
    }

    /// Splits raw server frames (unmasked, FIN) into payloads.
    static func payloads(_ bytes: [UInt8]) -> [[UInt8]] {
        frames(bytes).map { Array(bytes[$0.payload]) }
    }

    /// The byte length of each raw server frame, header included.
    static func frameLengths(_ bytes: [UInt8]) -> [Int] {
        frames(bytes).map { $0.payload.upperBound - $0.start }
    }

    /// Where each raw server frame (unmasked, FIN) starts, and where its payload lies.
    private static func frames(_ bytes: [UInt8]) -> [(start: Int, payload: Range<Int>)] {
        var out: [(start: Int, payload: Range<Int>)] = []
        var index = 0
        while index < bytes.count {
            var length = Int(bytes[index + 1] & 0x7F)
            var header = 2
            if length == 126 {
                length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                header = 4
            } else if length == 127 {
                length = (0..<8).reduce(0) { $0 << 8 | Int(bytes[index + 2 + $1]) }
                header = 10
            }
            out.append((index, (index + header)..<(index + header + length)))
            index += header + length
        }
        return out
    }
}
