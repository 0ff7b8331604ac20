import Foundation

/// Listening TCP sockets, one per service thread, all on one address and port; with several, each
/// has `SO_REUSEPORT` and the kernel spreads incoming connections over them by a hash of the
/// connection's addresses. The transport makes them itself because libwebsockets 4.1.6 built with
/// `LWS_MAX_SMP 1` sets `SO_REUSEPORT` only for a context of several service threads, never for
/// several contexts (docs/architecture.md, "Several service threads"); each context then adopts the
/// sockets its own listener accepts. One thread listens the same way, without `SO_REUSEPORT` (no
/// other process can then share its port): so that every thread count accepts with the same code,
/// which pauses when the process runs out of descriptors (`AcceptPause`) where lws's own listener
/// would retry at once, in a loop. Port 0: the first socket binds and learns the port, the others
/// bind that one.
///
/// The sockets are non-blocking (an accept on a service thread never waits) and IPv4, as the
/// server's contexts are. Threads: made before the service threads start; afterwards each descriptor
/// belongs to one service thread, which accepts on it and closes it when it stops.
final class ListeningSockets {
    let descriptors: [Int32]
    let port: Int

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `count` sockets; `SO_REUSEPORT` on each when there are several.
    init(host: String, port: Int, count: Int) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw Failure(description: "cannot listen on \(host): not an IPv4 address")
        }
        var descriptors: [Int32] = []
        var boundPort = port
        do {
            for _ in 0..<max(1, count) {
                address.sin_port = in_port_t(UInt16(boundPort).bigEndian)
                let descriptor = try Self.listen(on: address, host: host, sharing: count > 1)
                descriptors.append(descriptor)
                if boundPort == 0 { boundPort = try Self.localPort(of: descriptor) }
            }
        } catch {
            for descriptor in descriptors { Glibc.close(descriptor) }
            throw error
        }
        self.descriptors = descriptors
        self.port = boundPort
    }

    private static func listen(on address: sockaddr_in, host: String, sharing: Bool) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "cannot make a socket: \(String(cString: strerror(errno)))") }
        var on: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        // SO_REUSEADDR as libwebsockets sets it: a restart binds despite connections in TIME_WAIT.
        guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, size) == 0,
            !sharing || setsockopt(descriptor, SOL_SOCKET, SO_REUSEPORT, &on, size) == 0
        else {
            let why = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw Failure(description: "cannot share the listening port: \(why)")
        }
        var address = address
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(descriptor, SOMAXCONN) == 0 else {
            let why = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw Failure(
                description:
                    "cannot listen on \(host):\(UInt16(bigEndian: address.sin_port)) (\(why): address in use, or not an address of this machine)"
            )
        }
        return descriptor
    }

    private static func localPort(of descriptor: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { throw Failure(description: "cannot read the port bound: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Closes every socket (each service thread closes its own in the running server; this is for
    /// sockets no thread took, and for tests).
    func closeAll() {
        for descriptor in descriptors { Glibc.close(descriptor) }
    }
}
