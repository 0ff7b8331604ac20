/// Builds server-to-client WebSocket frames (RFC 6455 §5.2): FIN, opcode, unmasked length, payload.
///
/// Such a frame is byte-identical for every client, so each event is framed once and the same bytes
/// are written to every connection, many frames per system call (see docs/architecture.md).
public enum WebSocketFrame {
    public static let textOpcode: UInt8 = 0x1

    public static let binaryOpcode: UInt8 = 0x2

    public static func text(_ payload: [UInt8]) -> [UInt8] { frame(opcode: textOpcode, payload) }

    /// The keepalive's ping. It carries a payload because libwebsockets 4.1 tells its user only of
    /// pongs that have one, and a pong echoes its ping's payload.
    public static let ping: [UInt8] = frame(opcode: 0x9, Array("herald".utf8))

    /// A final, unmasked frame with the given opcode (text or binary).
    public static func frame(opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity(payload.count + 10)
        frame.append(0x80 | opcode)
        switch payload.count {
        case 0..<126:
            frame.append(UInt8(payload.count))
        case 126...0xFFFF:
            frame.append(126)
            frame.append(UInt8(payload.count >> 8))
            frame.append(UInt8(payload.count & 0xFF))
        default:
            frame.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((UInt64(payload.count) >> UInt64(shift)) & 0xFF)) }
        }
        frame.append(contentsOf: payload)
        return frame
    }

    /// The payload of a frame made by `text`, for tests and logs.
    public static func payload(of frame: [UInt8]) -> [UInt8] {
        guard frame.count >= 2 else { return [] }
        switch frame[1] & 0x7F {
        case 126: return Array(frame.dropFirst(4))
        case 127: return Array(frame.dropFirst(10))
        default: return Array(frame.dropFirst(2))
        }
    }
}
