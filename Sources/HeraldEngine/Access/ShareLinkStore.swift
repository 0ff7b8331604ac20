import Dispatch
import Foundation
import HeraldAccess
import Synchronization

/// The server's share links (docs/security.md): `ShareLinks` behind a lock, and the state file
/// `share-links.json` in the data dir, written after every change. Also the verifier of link tokens
/// (`?t=` or a bearer): a token with one dot is a link's, a JWT has two.
///
/// Thread: any. The service thread verifies handshakes and makes and revokes links from REST; each
/// holds `links`' lock only for the in-memory step (an HMAC, a list edit). The file is written on
/// `saver`, in the order the changes were made, so no request waits on the disk. A link made just
/// before a crash may be missing from the list after it, but its token still verifies (it carries
/// its own signature): only the key and the revocations must survive, and the key is written at start.
public final class ShareLinkStore: CredentialVerifier {
    private let links: Mutex<ShareLinks>
    private let file: URL
    private let saver = DispatchQueue(label: "herald.share-links", qos: .utility)
    private let log: @Sendable (String) -> Void

    /// Loads the state file of `dataDirectory`, or makes a new key and writes it before answering.
    /// Throws (naming the file) for a state file it cannot use: a new key would end every link.
    public init(dataDirectory: URL, log: @escaping @Sendable (String) -> Void) throws {
        file = dataDirectory.appendingPathComponent("share-links.json")
        self.log = log
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let state: ShareLinkState
        if let saved = try ShareLinkState.load(from: file) {
            state = saved
        } else {
            state = ShareLinkState()
            try state.save(to: file)
        }
        links = Mutex(try ShareLinks(state: state))
    }

    /// A link to `job` for `lifetime`; its token and record, or why not.
    public func make(job: String, creator: String, lifetime: Duration, now: Int64) -> Result<
        (token: String, link: ShareLinkRecord), AccessRefusal
    > {
        let (result, state) = links.withLock { links in (links.make(job: job, creator: creator, lifetime: lifetime, now: now), links.state)
        }
        if case .success = result { save(state) }
        return result
    }

    /// Revokes one link; its record, or nil when there is no such unexpired link.
    public func revoke(id: String, now: Int64) -> ShareLinkRecord? {
        let (record, state) = links.withLock { links in (links.revoke(id: id, now: now), links.state) }
        if record != nil { save(state) }
        return record
    }

    /// Revokes every link (a new key); the links that ended.
    public func revokeAll() -> [ShareLinkRecord] {
        let (ended, state) = links.withLock { links in (links.revokeAll(), links.state) }
        save(state)
        return ended
    }

    public func list(now: Int64) -> [ShareLinkRecord] { links.withLock { $0.list(now: now) } }

    public func record(id: String, now: Int64) -> ShareLinkRecord? { list(now: now).first { $0.id == id } }

    public func verify(bearer token: String, nowMilliseconds: Int64) -> Result<Principal, AccessRefusal>? {
        // Base64url has no `:`: a session's cookie (`session:ID.SECRET`) is not a link's.
        guard !token.contains(":"), token.utf8.lazy.filter({ $0 == UInt8(ascii: ".") }).count == 1 else { return nil }
        return links.withLock { $0.verify(token, now: nowMilliseconds) }
    }

    /// A link's principal stays valid while the link is listed: revoking removes it, and a new key
    /// (revoke all) empties the list.
    public func isStillValid(_ principal: Principal, nowMilliseconds: Int64) -> Bool? {
        guard case .shareLink(let id) = principal.source else { return nil }
        return links.withLock { links in links.state.links.contains { $0.id == id } }
    }

    /// Waits until every change made so far is on disk (tests, shutdown).
    public func flush() { saver.sync {} }

    private func save(_ state: ShareLinkState) {
        saver.async { [file, log] in
            do { try state.save(to: file) } catch { log("share links: could not write \(file.path): \(error)") }
        }
    }
}
