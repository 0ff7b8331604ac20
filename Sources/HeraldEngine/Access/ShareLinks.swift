import HeraldAccess
import HeraldCrypto

/// Signed, expiring, view-only links to one job. A token is `base64url(payload).base64url(mac)`, the
/// payload the compact JSON `{"v":1,"id":…,"job":…,"exp":…,"kid":…}` (`exp` in Unix seconds, `kid`
/// the key's generation) and the mac its HMAC-SHA256 under the current key. A good token stands for
/// a viewer of that one job until `exp`; one link is revoked by its id, all of them by a new key.
///
/// Every change is in `state`, which the caller saves (`ShareLinkState.save`) after `make`,
/// `revoke`, `revokeAll` and `removeExpired`. Time is the caller's (wall-clock milliseconds).
/// A value: the hub owns one on its service thread.
public struct ShareLinks: Sendable {
    public private(set) var state: ShareLinkState
    /// The longest a link may live (`herald share --for` is checked against it).
    public let maxLifetime: Duration
    /// How many unexpired links may exist at once.
    public let maxLinks: Int
    private var key: [UInt8]
    private var revokedIDs: Set<String>

    /// Refused for a state whose key is not 32 bytes (`ShareLinkState.load` already refuses such a file).
    public init(state: ShareLinkState = ShareLinkState(), maxLifetime: Duration = .seconds(30 * 86_400), maxLinks: Int = 10_000) throws {
        guard let key = state.keyBytes else { throw ShareLinkState.Failure(description: "the share-link key is not 32 bytes of base64") }
        self.state = state
        self.key = key
        self.revokedIDs = Set(state.revoked.map(\.id))
        self.maxLifetime = maxLifetime
        self.maxLinks = max(1, maxLinks)
    }

    /// Tokens longer than this are refused unread (a real one is about 160 characters).
    static let maxTokenLength = 1_024

    /// Makes a link to `job` for `lifetime` (at most `maxLifetime`); returns its token, which is kept
    /// nowhere, and its record. Refused when `maxLinks` unexpired links exist.
    public mutating func make(job: String, creator: String, lifetime: Duration, now: Int64) -> Result<
        (token: String, link: ShareLinkRecord), AccessRefusal
    > {
        removeExpired(now: now)
        guard !job.isEmpty, job.utf8.count <= 128 else { return .failure(AccessRefusal(.forbidden, "a share link needs a job id")) }
        guard lifetime > .zero else { return .failure(AccessRefusal(.forbidden, "a share link must last longer than 0 s")) }
        guard lifetime <= maxLifetime else {
            return .failure(AccessRefusal(.forbidden, "a share link may last at most \(maxLifetime.words)"))
        }
        guard state.links.count < maxLinks else {
            return .failure(AccessRefusal(.forbidden, "there are \(maxLinks) unexpired share links already; revoke some first"))
        }
        // Whole seconds in the token; the record says the same instant.
        let expiresInSeconds = (now + lifetime.wholeMilliseconds) / 1_000
        var id = Base64URL.encode(SecureRandom.bytes(12))
        while state.links.contains(where: { $0.id == id }) { id = Base64URL.encode(SecureRandom.bytes(12)) }
        let payload: JSONObject = [
            "v": 1, "id": .string(id), "job": .string(job), "exp": .int(expiresInSeconds), "kid": .int(Int64(state.generation)),
        ]
        let payloadBytes = JSONWriter.encode(.object(payload))
        let token = Base64URL.encode(payloadBytes) + "." + Base64URL.encode(HMAC.sha256(key: key, message: payloadBytes))
        let link = ShareLinkRecord(id: id, job: job, creator: creator, createdAt: now, expiresAt: expiresInSeconds * 1_000)
        state.links.append(link)
        return .success((token, link))
    }

    /// The viewer a token stands for, or why not. The signature is checked first (in constant time),
    /// so nothing of an unsigned token is believed; the refusal never repeats the token.
    public func verify(_ token: String, now: Int64) -> Result<Principal, AccessRefusal> {
        let malformed = AccessRefusal.unauthorized("share link malformed")
        guard token.utf8.count <= Self.maxTokenLength, let dot = token.firstIndex(of: "."),
            let payloadBytes = Base64URL.decode(token[..<dot]), let mac = Base64URL.decode(token[token.index(after: dot)...])
        else { return .failure(malformed) }
        guard HMAC.constantTimeEquals(mac, HMAC.sha256(key: key, message: payloadBytes)) else {
            // A link signed with an earlier key reads as revoked (rotation revokes them all), a forged one as invalid.
            let olderGeneration = Self.payload(payloadBytes).map { $0.generation < state.generation } ?? false
            return .failure(olderGeneration ? Self.revoked : .unauthorized("share link invalid"))
        }
        guard let payload = Self.payload(payloadBytes) else { return .failure(malformed) }
        guard payload.generation == state.generation else { return .failure(Self.revoked) }
        guard payload.expires * 1_000 > now else { return .failure(.unauthorized("share link expired")) }
        guard !revokedIDs.contains(payload.id) else { return .failure(Self.revoked) }
        return .success(
            Principal(
                name: "share:\(payload.id)", role: .viewer, scope: AccessScope(jobs: [payload.job]),
                expiresAtMilliseconds: payload.expires * 1_000, source: .shareLink(id: payload.id)))
    }

    private static let revoked = AccessRefusal.unauthorized("share link revoked")

    /// Revokes one link; returns its record, or nil when no unexpired link of this generation has that id.
    @discardableResult
    public mutating func revoke(id: String, now: Int64) -> ShareLinkRecord? {
        removeExpired(now: now)
        guard let index = state.links.firstIndex(where: { $0.id == id }) else { return nil }
        let link = state.links.remove(at: index)
        state.revoked.append(ShareLinkState.Revoked(id: id, expiresAt: link.expiresAt))
        revokedIDs.insert(id)
        return link
    }

    /// Revokes every link at once: a new key in a new generation; tokens of earlier ones read as
    /// revoked. Returns the records of the links that ended.
    @discardableResult
    public mutating func revokeAll() -> [ShareLinkRecord] {
        let ended = state.links
        var next = ShareLinkState(generation: state.generation + 1)
        next.version = state.version
        state = next
        key = next.keyBytes ?? []
        revokedIDs = []
        return ended
    }

    /// Forgets expired links and revocations (their tokens fail as expired). True when anything changed.
    @discardableResult
    public mutating func removeExpired(now: Int64) -> Bool {
        let before = (state.links.count, state.revoked.count)
        state.links.removeAll { $0.expiresAt <= now }
        state.revoked.removeAll { $0.expiresAt <= now }
        guard (state.links.count, state.revoked.count) != before else { return false }
        revokedIDs = Set(state.revoked.map(\.id))
        return true
    }

    /// The unexpired links, newest first, for an admin.
    public func list(now: Int64) -> [ShareLinkRecord] {
        state.links.filter { $0.expiresAt > now }.reversed()
    }

    private struct Payload {
        let id: String
        let job: String
        let expires: Int64
        let generation: Int
    }

    private static func payload(_ bytes: [UInt8]) -> Payload? {
        guard let value = try? JSONParser.parse(bytes, maxDepth: 2), value["v"]?.intValue == 1,
            let id = value["id"]?.stringValue, let job = value["job"]?.stringValue, let expires = value["exp"]?.intValue,
            let generation = value["kid"]?.intValue, let kid = Int(exactly: generation)
        else { return nil }
        return Payload(id: id, job: job, expires: expires, generation: kid)
    }
}
