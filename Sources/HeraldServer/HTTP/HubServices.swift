import HeraldAccess
import HeraldEngine

/// What the hub lends the routes that are answered without the engine: the share links, access
/// control (its clock, revocations), whether the stream knows a job, and the scheme of the server's
/// own URLs. Built per request on the service thread; the routes run there too.
struct HubServices {
    var shareLinks: ShareLinkStore?
    var sessions: SessionVerifier?
    var audit: AuditTrail?
    var access: AccessControl?
    /// Whether the stream told of this job lately (the hub's `JobKinds`).
    var isKnown: (String) -> Bool = { _ in false }
    var scheme = "http"
}
