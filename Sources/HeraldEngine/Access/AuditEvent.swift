import HeraldAccess
import Foundation

/// One line of the audit trail: who did (or was refused) what, when, from where. Made only by the
/// factories below, which take principals, records, names and counts, never a password, key, token
/// or cookie, so no audit line can hold a secret. Its JSON is
/// `{"ts","event","actor","address"?,"job"?,"kind"?,"detail"?}`, `ts` in ISO 8601 UTC with milliseconds.
public struct AuditEvent: Sendable, Hashable {
    public enum Kind: String, Sendable, CaseIterable {
        case signIn = "signin"
        case signInFailed = "signin_failed"
        case keyUsed = "key_used"
        case start
        case cancel
        case refused
        case shareMade = "share_made"
        case shareUsed = "share_used"
        case shareRevoked = "share_revoked"
        case usersReloaded = "users_reloaded"
        case sessionRevoked = "session_revoked"
    }

    /// Wall-clock milliseconds since 1970.
    public let time: Int64
    public let kind: Kind
    /// A principal's name (a user, a key's name, `share:ID`, `anonymous`), the user of a failed sign-in
    /// (`(unknown user)` when the name typed is no user), `unidentified` for a refusal without an
    /// identity, or `herald` for what the server did by itself.
    public let actor: String
    /// The client's address, when a client asked.
    public let address: String?
    public let job: String?
    /// The job's kind.
    public let jobKind: String?
    public let detail: String?

    private init(
        time: Int64, kind: Kind, actor: String, address: String? = nil, job: String? = nil, jobKind: String? = nil, detail: String? = nil
    ) {
        self.time = time
        self.kind = kind
        self.actor = Self.bounded(actor)
        self.address = address.map(Self.bounded)
        self.job = job.map(Self.bounded)
        self.jobKind = jobKind.map(Self.bounded)
        self.detail = detail.map(Self.bounded)
    }

    // MARK: - The events

    public static func signIn(_ principal: Principal, address: String?, at time: Int64) -> AuditEvent {
        AuditEvent(time: time, kind: .signIn, actor: principal.name, address: address, detail: principal.role.rawValue)
    }

    /// `knownUser`: the name typed when it is a user of the users file (a wrong password), else nil.
    /// A name that is no user is not recorded: it may be a password typed into the wrong field.
    public static func signInFailed(knownUser: String?, address: String?, at time: Int64) -> AuditEvent {
        AuditEvent(
            time: time, kind: .signInFailed, actor: knownUser ?? Self.unknownUser, address: address,
            detail: knownUser == nil ? "no such user" : "wrong password")
    }

    /// The actor of a failed sign-in whose name is no user.
    public static let unknownUser = "(unknown user)"

    /// An API key or a JWT was accepted (at a handshake or a REST call).
    public static func credentialUsed(_ principal: Principal, address: String?, at time: Int64) -> AuditEvent {
        AuditEvent(time: time, kind: .keyUsed, actor: principal.name, address: address, detail: Self.describe(principal.source))
    }

    public static func start(by principal: Principal, job: String, kind: String, address: String?, at time: Int64) -> AuditEvent {
        AuditEvent(time: time, kind: .start, actor: principal.name, address: address, job: job, jobKind: kind)
    }

    public static func cancel(by principal: Principal, job: String, kind: String?, address: String?, at time: Int64) -> AuditEvent {
        AuditEvent(time: time, kind: .cancel, actor: principal.name, address: address, job: job, jobKind: kind)
    }

    /// A refusal; `principal` nil when no identity was shown (`unauthorized`). The detail is the
    /// refusal's message, which never repeats a secret (`AccessRefusal`).
    public static func refused(_ refusal: AccessRefusal, principal: Principal?, address: String?, job: String? = nil, at time: Int64)
        -> AuditEvent
    {
        AuditEvent(
            time: time, kind: .refused, actor: principal?.name ?? "unidentified", address: address, job: job,
            detail: "\(refusal.kind.rawValue): \(refusal.message)")
    }

    public static func shareMade(_ link: ShareLinkRecord, address: String?, at time: Int64) -> AuditEvent {
        AuditEvent(
            time: time, kind: .shareMade, actor: link.creator, address: address, job: link.job,
            detail: "share:\(link.id) until \(Self.timestamp(link.expiresAt))")
    }

    /// A share link opened a stream or answered a request; `principal` is what `ShareLinks.verify` gave.
    public static func shareUsed(_ principal: Principal, address: String?, at time: Int64) -> AuditEvent {
        AuditEvent(time: time, kind: .shareUsed, actor: principal.name, address: address, job: principal.scope.jobs?.sorted().first)
    }

    public static func shareRevoked(_ link: ShareLinkRecord, by principal: Principal, at time: Int64) -> AuditEvent {
        AuditEvent(time: time, kind: .shareRevoked, actor: principal.name, job: link.job, detail: "share:\(link.id)")
    }

    /// Every link at once (a new key); `count` links were unexpired.
    public static func allSharesRevoked(count: Int, by principal: Principal, at time: Int64) -> AuditEvent {
        AuditEvent(time: time, kind: .shareRevoked, actor: principal.name, detail: "all \(count) share link(s): new key")
    }

    /// The users file was read again: how many users and keys it holds now, how many sessions ended.
    public static func usersReloaded(users: Int, keys: Int, sessionsEnded: Int, at time: Int64) -> AuditEvent {
        AuditEvent(
            time: time, kind: .usersReloaded, actor: "herald", detail: "\(users) user(s), \(keys) key(s); \(sessionsEnded) session(s) ended"
        )
    }

    /// A session ended by an admin (or by sign-out, when `principal` is its own user).
    public static func sessionRevoked(_ session: SessionTable.Session, by principal: Principal, at time: Int64) -> AuditEvent {
        AuditEvent(time: time, kind: .sessionRevoked, actor: principal.name, detail: "session \(session.id) of \(session.principal.name)")
    }

    // MARK: - JSON

    public var json: JSONValue {
        var object: JSONObject = ["ts": .string(Self.timestamp(time)), "event": .string(kind.rawValue), "actor": .string(actor)]
        if let address { object["address"] = .string(address) }
        if let job { object["job"] = .string(job) }
        if let jobKind { object["kind"] = .string(jobKind) }
        if let detail { object["detail"] = .string(detail) }
        return .object(object)
    }

    /// Reads `json` back; nil for anything it could not have made.
    public init?(json: JSONValue) {
        guard let ts = json["ts"]?.stringValue, let time = Self.milliseconds(ts), let event = json["event"]?.stringValue,
            let kind = Kind(rawValue: event), let actor = json["actor"]?.stringValue
        else { return nil }
        self.init(
            time: time, kind: kind, actor: actor, address: json["address"]?.stringValue, job: json["job"]?.stringValue,
            jobKind: json["kind"]?.stringValue, detail: json["detail"]?.stringValue)
    }

    // MARK: - Helpers

    /// Fields longer than this are cut: a line stays small whatever a client typed.
    static let maxFieldBytes = 512

    private static func bounded(_ text: String) -> String {
        text.utf8.count <= maxFieldBytes ? text : String(decoding: text.utf8.prefix(maxFieldBytes), as: UTF8.self)
    }

    private static func describe(_ source: CredentialSource) -> String {
        switch source {
        case .anonymous: return "anonymous"
        case .controlToken: return "control token"
        case .session(_, let session): return "session \(session)"
        case .key(let name): return "key \(name)"
        case .jwt(let subject): return "jwt \(subject)"
        case .shareLink(let id): return "share:\(id)"
        case .proxy(let user): return "proxy header \(user)"
        case .workerToken: return "worker token"
        case .forwardedByNode: return "another node"
        }
    }

    /// `2026-12-06T12:01:08.123Z`.
    static func timestamp(_ milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds.quotientRoundingDown(1_000))
        let millis = Int(milliseconds - Int64(seconds) * 1_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }

    /// Reads `timestamp`'s format back.
    static func milliseconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 24, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A, bytes[16] == 0x3A,
            bytes[19] == 0x2E, bytes[23] == 0x5A
        else { return nil }
        func number(_ range: Range<Int>) -> Int32? {
            var value: Int32 = 0
            for byte in bytes[range] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int32(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), let millis = number(20..<23)
        else { return nil }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec) = (
            year - 1900, month - 1, day, hour, minute, second
        )
        return Int64(timegm(&parts)) * 1_000 + Int64(millis)
    }
}

extension Int64 {
    /// Division rounding towards minus infinity (times before 1970 keep a positive millisecond part).
    fileprivate func quotientRoundingDown(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }
}
