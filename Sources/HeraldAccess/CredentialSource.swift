/// How an identity proved itself, and what names the credential for revocation and for the audit.
/// Never holds the secret itself: only names and ids that are safe to log.
public enum CredentialSource: Sendable, Hashable {
    /// No identity was configured on this server: everyone acts as the local user.
    case anonymous
    /// The single `--token` control token.
    case controlToken
    /// A signed-in user's session; `session` is the session's public id (not the cookie value).
    case session(user: String, session: String)
    /// An API key from the users file, by its name.
    case key(name: String)
    /// A JWT minted by the operator's application; `subject` is its `sub`.
    case jwt(subject: String)
    /// A share link, by its id.
    case shareLink(id: String)
    /// A user named by a trusted proxy's header.
    case proxy(user: String)
    /// `--worker-token`, the shared worker credential.
    case workerToken
    /// A request another cluster node already checked and passed on (a cancel of a job this node runs).
    case forwardedByNode
}
