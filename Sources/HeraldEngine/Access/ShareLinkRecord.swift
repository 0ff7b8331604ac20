import HeraldAccess
/// A share link as the admin's list shows it and the state file keeps it: never its token.
public struct ShareLinkRecord: Codable, Sendable, Hashable {
    /// The link's random id: `share:<id>` in the audit, what `revoke` takes.
    public let id: String
    /// The one job it shows.
    public let job: String
    /// Who made it (a principal's name).
    public let creator: String
    /// Wall-clock milliseconds since 1970.
    public let createdAt: Int64
    /// Wall-clock milliseconds since 1970; the token says the same time in whole seconds.
    public let expiresAt: Int64

    public init(id: String, job: String, creator: String, createdAt: Int64, expiresAt: Int64) {
        self.id = id
        self.job = job
        self.creator = creator
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
