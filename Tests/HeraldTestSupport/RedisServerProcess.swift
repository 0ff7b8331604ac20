import Foundation
import HeraldRedis
import XCTest

/// A real redis-server for a test: 127.0.0.1 on a free port, its files in a fresh temporary folder.
/// Stopped by PID; `restart()` starts it again on the same port and folder. Stopped (and the folder
/// removed) on deinit, and by the teardown block `XCTestCase.startRedis` adds.
///
/// It runs under `setpriv --pdeathsig KILL`, so a test process that crashes (or TSan's
/// halt_on_error) takes it along instead of leaving it running. The death signal follows the
/// thread that started it: start servers on the test's own thread.
///
/// Thread: the test's; the teardown block may run on another, hence the lock.
public final class RedisServerProcess: @unchecked Sendable {
    // @unchecked Sendable: `pid` is only touched while `lock` is held; `port` is set only in init.
    public enum Persistence {
        /// Nothing on disk: a restart loses every key.
        case none
        /// An append-only file, fsynced every second (and on a clean shutdown).
        case appendOnly
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public private(set) var port = 0
    public let folder: URL
    public let persistence: Persistence
    /// More configuration, as redis-server takes it on its command line: `["--requirepass", "pw"]`.
    public let configuration: [String]
    private let executable: String
    private let lock = NSLock()
    private var pid: pid_t?

    public var url: String { "redis://127.0.0.1:\(port)" }
    public var address: RedisAddress { try! RedisAddress(url) }
    public var log: String { (try? String(contentsOf: folder.appendingPathComponent("redis.log"), encoding: .utf8)) ?? "" }

    public init(persistence: Persistence = .none, configuration: [String] = []) throws {
        let candidates = ["/usr/bin/redis-server", "/usr/local/bin/redis-server", "/usr/sbin/redis-server"]
        guard let executable = candidates.first(where: FileManager.default.isExecutableFile) else {
            throw Failure(description: "redis-server is not installed: `make deps-test` installs it (Debian package redis-server)")
        }
        self.executable = executable
        self.persistence = persistence
        self.configuration = configuration
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // The free port can be taken between the probe and redis's bind: a few tries.
        var attempt = 0
        while true {
            port = try Loopback.freePort()
            do {
                try start()
                return
            } catch {
                attempt += 1
                if attempt == 3 { throw error }
            }
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// SIGTERM (a clean shutdown: with AOF, the file is flushed), then waits for the exit. A paused
    /// server is continued first; one that has not exited after 30 s is killed.
    public func stop() {
        lock.withLock {
            guard let pid else { return }
            Glibc.kill(pid, SIGTERM)
            Glibc.kill(pid, SIGCONT)
            if !Self.reap(pid, within: 30) {
                Glibc.kill(pid, SIGKILL)
                _ = Self.reap(pid, within: nil)
            }
            self.pid = nil
        }
    }

    /// SIGKILL: the server vanishes mid-flight (its sockets are closed by the kernel).
    public func kill() {
        lock.withLock {
            guard let pid else { return }
            Glibc.kill(pid, SIGKILL)
            _ = Self.reap(pid, within: nil)
            self.pid = nil
        }
    }

    /// Stops the server if it runs, then starts it again on the same port and folder.
    public func restart() throws {
        stop()
        try start()
    }

    /// SIGSTOP: connections stay open and connects still succeed (the kernel completes them), but
    /// nothing is answered until `resume()`.
    public func pause() { lock.withLock { if let pid { Glibc.kill(pid, SIGSTOP) } } }

    public func resume() { lock.withLock { if let pid { Glibc.kill(pid, SIGCONT) } } }

    private func start() throws {
        var arguments = [
            executable, "--port", String(port), "--bind", "127.0.0.1", "--dir", folder.path,
            "--logfile", folder.appendingPathComponent("redis.log").path, "--daemonize", "no", "--save", "",
        ]
        arguments += persistence == .none ? ["--appendonly", "no"] : ["--appendonly", "yes", "--appendfsync", "everysec"]
        arguments += configuration
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") {
            arguments = ["/usr/bin/setpriv", "--pdeathsig", "KILL", "--"] + arguments
        }
        let pid = try Self.spawn(arguments)
        lock.withLock { self.pid = pid }
        // Ready when PING answers PONG (while an AOF loads, Redis answers -LOADING instead).
        let deadline = Date().addingTimeInterval(30)
        while !Loopback.ping(port: port) {
            if lock.withLock({ Self.reap(pid, within: 0) }) {
                lock.withLock { self.pid = nil }
                throw Failure(description: "redis-server on port \(port) exited at start; its log:\n\(log)")
            }
            if Date() >= deadline {
                stop()
                throw Failure(description: "redis-server on port \(port) did not answer PING within 30 s; its log:\n\(log)")
            }
            usleep(5_000)
        }
    }

    /// Starts `arguments` (the first is the program) with /dev/null for stdin, stdout and stderr
    /// (the log goes to redis.log) and every signal at its default (the test process may ignore some).
    private static func spawn(_ arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in 0...2 {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let cArguments = arguments.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, cArguments[0]!, &actions, &attributes, cArguments, environ)
        guard result == 0 else { throw Failure(description: "cannot start \(arguments[0]): \(String(cString: strerror(result)))") }
        return pid
    }

    /// Waits for `pid` to exit (nil: as long as it takes); true once it was reaped.
    private static func reap(_ pid: pid_t, within seconds: Double?) -> Bool {
        let deadline = seconds.map { Date().addingTimeInterval($0) }
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, deadline == nil ? 0 : WNOHANG)
            if result == pid || (result < 0 && errno != EINTR) { return true }
            if let deadline, Date() >= deadline { return false }
            if deadline != nil { usleep(1_000) }
        }
    }
}

extension XCTestCase {
    /// A redis-server stopped (and its folder removed) when the test ends.
    public func startRedis(persistence: RedisServerProcess.Persistence = .none, configuration: [String] = []) throws
        -> RedisServerProcess
    {
        let server = try RedisServerProcess(persistence: persistence, configuration: configuration)
        addTeardownBlock {
            server.stop()
            try? FileManager.default.removeItem(at: server.folder)
        }
        return server
    }
}
