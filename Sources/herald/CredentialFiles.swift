import Dispatch
import Foundation
import HeraldAccess
import HeraldEngine
import HeraldServer

/// The users file behind a running server (docs/security.md): read at start (a file it cannot use
/// stops the server), and again on SIGHUP and whenever it changes (checked every 2 s), without a
/// restart and without dropping anyone still allowed. A file that became unusable is reported and
/// ignored: the server keeps the last good one. After a reload the server's verifiers are replaced;
/// open connections of removed keys and users end within a sweep (4003), sessions of users still in
/// the file take their new role.
///
/// Thread: its own queue (`queue`) reads the file, hashes nothing, and swaps the verifiers.
final class CredentialFiles: @unchecked Sendable {
    // @unchecked Sendable: `seen` and `sources` are only touched on `queue`; the rest is immutable.
    private let path: String
    private let access: AccessControl
    let sessions: SessionVerifier
    private let fixed: [any CredentialVerifier]
    private let audit: AuditTrail?
    private let log: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "herald.users-file", qos: .utility)
    /// What the file was when last read (modification time, size, inode). Thread: `queue`.
    private var seen: [Int]
    private var sources: [any DispatchSourceProtocol] = []

    /// Reads `path`; throws a sentence naming the file and the problem when it cannot be used.
    static func load(_ path: String) throws(Arguments.UsageError) -> UserDirectory {
        do { return UserDirectory(try UsersFile.load(path: path)) } catch { throw Arguments.UsageError(description: "--users: \(error)") }
    }

    /// `fixed`: the verifiers that do not come from the file (JWTs, share links); the users file's
    /// keys and the sessions are added after them.
    init(
        path: String, directory: UserDirectory, access: AccessControl, sessions: SessionVerifier, fixed: [any CredentialVerifier],
        audit: AuditTrail?, log: @escaping @Sendable (String) -> Void
    ) {
        self.path = path
        self.access = access
        self.sessions = sessions
        self.fixed = fixed
        self.audit = audit
        self.log = log
        seen = Self.fingerprint(path)
        access.replaceVerifiers(fixed + [UsersVerifier(directory: directory), sessions])
    }

    /// Starts watching: SIGHUP and a 2 s poll.
    func watch() {
        queue.sync {
            signal(SIGHUP, SIG_IGN)
            let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
            hangup.setEventHandler { [self] in reload(reason: "SIGHUP") }
            hangup.resume()
            let poll = DispatchSource.makeTimerSource(queue: queue)
            poll.schedule(deadline: .now() + 2, repeating: 2, leeway: .milliseconds(200))
            poll.setEventHandler { [self] in
                if Self.fingerprint(path) != seen { reload(reason: "the file changed") }
            }
            poll.resume()
            sources = [hangup, poll]
        }
    }

    /// Thread: `queue`.
    private func reload(reason: String) {
        seen = Self.fingerprint(path)
        let file: UsersFile
        do { file = try UsersFile.load(path: path) } catch {
            log("users file not reloaded (\(reason)); the last good one stays in use: \(error)")
            return
        }
        let directory = UserDirectory(file)
        access.replaceVerifiers(fixed + [UsersVerifier(directory: directory), sessions])
        let ended = sessions.reload(directory)
        audit?.append(
            .usersReloaded(users: file.users.count, keys: file.keys.count, sessionsEnded: ended.count, at: access.nowMilliseconds))
        log("users file reloaded (\(reason)): \(file.users.count) users, \(file.keys.count) keys; \(ended.count) sessions ended")
    }

    private static func fingerprint(_ path: String) -> [Int] {
        var information = stat()
        guard stat(path, &information) == 0 else { return [] }
        return [Int(information.st_mtim.tv_sec), Int(information.st_mtim.tv_nsec), Int(information.st_size), Int(information.st_ino)]
    }
}
