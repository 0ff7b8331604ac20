import CSystemExtras
import Foundation

/// A job's program: started with `posix_spawn` in its own session (so its whole process group can
/// be signalled), stdin from /dev/null, stdout and stderr (and, optionally, descriptor 3) into pipes
/// the runner reads, every other descriptor closed, default signal dispositions. No shell.
///
/// Thread: the job's worker thread, which owns it from spawn to reap.
final class ChildProcess {
    let pid: pid_t
    /// Read ends, non-blocking: stdout, stderr, and descriptor 3 when asked for.
    let stdout: Int32
    let stderr: Int32
    let progress: Int32?
    private var reaped = false

    /// How the program ended.
    enum Exit: Equatable {
        case code(Int32)
        case signal(Int32)
    }

    struct SpawnFailure: Error, CustomStringConvertible {
        let description: String
    }

    private init(pid: pid_t, stdout: Int32, stderr: Int32, progress: Int32?) {
        self.pid = pid
        self.stdout = stdout
        self.stderr = stderr
        self.progress = progress
    }

    deinit {
        close(stdout)
        close(stderr)
        if let progress { close(progress) }
    }

    static func spawn(
        executable: String, argv: [String], environment: [String: String], cwd: String?, progressOnDescriptor3: Bool
    ) throws(SpawnFailure) -> ChildProcess {
        var pipes: [[Int32]] = []
        func makePipe() throws(SpawnFailure) -> [Int32] {
            var ends: [Int32] = [0, 0]
            guard pipe2(&ends, O_CLOEXEC) == 0 else {
                throw SpawnFailure(description: "cannot make a pipe: \(String(cString: strerror(errno)))")
            }
            pipes.append(ends)
            return ends
        }
        let out: [Int32]
        let err: [Int32]
        var fd3: [Int32]?
        do {
            out = try makePipe()
            err = try makePipe()
            if progressOnDescriptor3 { fd3 = try makePipe() }
        } catch {
            for ends in pipes { close(ends[0]); close(ends[1]) }
            throw error
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        if let fd3 { posix_spawn_file_actions_adddup2(&actions, fd3[1], 3) }
        posix_spawn_file_actions_addclosefrom_np(&actions, fd3 == nil ? 3 : 4)
        if let cwd { posix_spawn_file_actions_addchdir_np(&actions, cwd) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The server ignores SIGPIPE, SIGINT and SIGTERM; ignored signals survive exec, and a program
        // that ignores SIGTERM could only be killed. Every signal gets its default back, none blocked.
        var defaults = sigset_t()
        sigfillset(&defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK) | herald_posix_spawn_setsid())

        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, cArguments, cEnvironment)
        for ends in pipes { close(ends[1]) }
        guard result == 0 else {
            for ends in pipes { close(ends[0]) }
            throw SpawnFailure(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        for ends in pipes { _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK) }
        return ChildProcess(pid: pid, stdout: out[0], stderr: err[0], progress: fd3?[0])
    }

    /// Sends `signal` to every process of the program's group (its session leader's group).
    func signalGroup(_ signal: Int32) {
        _ = kill(-pid, signal)
    }

    /// The program's exit, once it ended (reaped without waiting); nil while it runs.
    func reap() -> Exit? {
        guard !reaped else { return nil }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return nil }
        reaped = true
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import; this is their layout.
        let signal = status & 0x7f
        return signal == 0 ? .code((status >> 8) & 0xff) : .signal(signal)
    }

    /// Whether any process of the group is still alive (zombies waiting for their parent are dead).
    /// Read from /proc: the group's other members are not this process's children to wait for.
    func groupIsAlive() -> Bool {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return false }
        for entry in entries where entry.first?.isNumber == true {
            guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After "pid (comm)": state ppid pgrp …; comm may hold spaces and parentheses.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, fields[0] != "Z", fields[0] != "X", pid_t(fields[2]) == pid else { continue }
            return true
        }
        return false
    }

    /// Signal names for messages: "TERM", "KILL", or the number.
    static func name(ofSignal signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "HUP", SIGINT: "INT", SIGQUIT: "QUIT", SIGILL: "ILL", SIGABRT: "ABRT", SIGFPE: "FPE", SIGKILL: "KILL",
            SIGSEGV: "SEGV", SIGPIPE: "PIPE", SIGALRM: "ALRM", SIGTERM: "TERM", SIGUSR1: "USR1", SIGUSR2: "USR2", SIGBUS: "BUS",
        ]
        return names[signal] ?? String(signal)
    }
}
