import Foundation

/// Plain sockets on 127.0.0.1 for the test servers: a free port, and PING without a client library.
public enum Loopback {
    /// PING on a fresh socket: true on +PONG, or on -NOAUTH (a server that wants a password is up).
    /// Bounded by a 1 s receive timeout (a paused server).
    public static func ping(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0, send(descriptor, "PING\r\n", 6, Int32(MSG_NOSIGNAL)) == 6 else { return false }
        var answer = [UInt8](repeating: 0, count: 64)
        let count = recv(descriptor, &answer, answer.count, 0)
        return (count >= 5 && Array(answer[0..<5]) == Array("+PONG".utf8)) || (count >= 7 && Array(answer[0..<7]) == Array("-NOAUTH".utf8))
    }

    /// A port nothing listens on now: bind port 0 on 127.0.0.1, read what the kernel chose, close.
    public static func freePort() throws -> Int {
        let (descriptor, port) = try boundSocket()
        close(descriptor)
        return port
    }

    /// A TCP socket bound to 127.0.0.1 on a port the kernel chose, and that port; the caller owns
    /// the descriptor (listens on it, closes it).
    public static func boundSocket() throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw RedisServerProcess.Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw RedisServerProcess.Failure(description: "cannot bind a free port: \(reason)")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}
