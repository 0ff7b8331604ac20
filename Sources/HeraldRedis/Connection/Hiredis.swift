internal import CHiredis
import Glibc

/// The one place HeraldRedis reads hiredis's C values: arguments go in as (pointer, length) pairs,
/// replies come out as `RedisReply` (the C tree is freed at once), and a context's error code and
/// text become a `RedisError`. Thread: the caller's (no state).
enum Hiredis {
    /// Calls `body` with argc, argv and argvlen for `arguments`, valid only during the call. The
    /// words are copied into one buffer (with a spare byte, so an empty word still has an address).
    static func withArgv<Result>(
        _ arguments: [[UInt8]], _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> Result
    ) -> Result {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(arguments.reduce(1) { $0 + $1.count })
        var offsets: [Int] = []
        for argument in arguments {
            offsets.append(buffer.count)
            buffer.append(contentsOf: argument)
        }
        buffer.append(0)
        let lengths = arguments.map(\.count)
        return buffer.withUnsafeBufferPointer { bytes in
            let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
            var argv: [UnsafePointer<CChar>?] = offsets.map { base + $0 }
            return argv.withUnsafeMutableBufferPointer { argv in
                lengths.withUnsafeBufferPointer { body(Int32(arguments.count), argv.baseAddress!, $0.baseAddress!) }
            }
        }
    }

    /// Copies hiredis's reply tree into a `RedisReply` and frees it.
    static func take(_ raw: UnsafeMutableRawPointer) -> RedisReply {
        defer { freeReplyObject(raw) }
        return convert(raw.assumingMemoryBound(to: redisReply.self))
    }

    private static func convert(_ reply: UnsafePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        func bytes() -> [UInt8] {
            guard let text = value.str else { return [] }
            return Array(UnsafeRawBufferPointer(start: text, count: value.len))
        }
        switch value.type {
        case REDIS_REPLY_STATUS: return .status(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_ERROR: return .error(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_INTEGER: return .integer(Int64(value.integer))
        case REDIS_REPLY_STRING: return .bulk(bytes())
        case REDIS_REPLY_ARRAY:
            return .array((0..<value.elements).map { index in value.element[index].map { convert($0) } ?? .null })
        default: return .null  // REDIS_REPLY_NIL (hiredis 0.14 has no other types)
        }
    }

    /// The error a failed call left in `context`. `timeout` is the one in force, for the message.
    static func error(of context: UnsafeMutablePointer<redisContext>, address: RedisAddress, timeout: Double) -> RedisError {
        let message = withUnsafeBytes(of: context.pointee.errstr) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        // hiredis keeps only strerror's text of errno (errno itself may have changed since), so the
        // causes are told apart by that text. A socket timeout (SO_RCVTIMEO) reads as EAGAIN.
        func says(_ code: Int32) -> Bool { message.hasSuffix(String(cString: strerror(code))) }
        switch context.pointee.err {
        case REDIS_ERR_EOF: return .eof(address)
        case REDIS_ERR_PROTOCOL: return .protocolError(address, message: message)
        case REDIS_ERR_IO where says(ECONNREFUSED): return .refused(address)
        case REDIS_ERR_IO where says(EAGAIN) || says(ETIMEDOUT): return .timeout(address, seconds: timeout)
        default: return .io(address, message: message.isEmpty ? "error \(context.pointee.err)" : message)
        }
    }

    /// `seconds` as a `timeval`, for redisConnectWithTimeout and redisSetTimeout.
    static func timeval(_ seconds: Double) -> Glibc.timeval {
        let whole = seconds.rounded(.down)
        return Glibc.timeval(tv_sec: Int(whole), tv_usec: Int((seconds - whole) * 1_000_000))
    }
}
