/// The error codes shared by the WebSocket protocol and the HTTP API (docs/protocol.md lists them).
public enum ErrorCode: String, Sendable, CaseIterable {
    case badJSON = "bad_json"
    case badRequest = "bad_request"
    case unknownType = "unknown_type"
    case unknownKind = "unknown_kind"
    case busy
    case notFound = "not_found"
    case notCancellable = "not_cancellable"
    case tooLarge = "too_large"
    case rateLimited = "rate_limited"
    case unauthorized
    /// A known identity asked for something its role or scope does not allow (docs/security.md).
    case forbidden
    case shuttingDown = "shutting_down"
    /// A worker's report on an attempt it no longer holds (docs/workers.md): kill that run.
    case leaseLost = "lease_lost"
    /// A worker's `hello` names a kind whose params differ from the server's declaration.
    case kindMismatch = "kind_mismatch"
    /// The job is known but what was asked of it is no longer kept: the matches of a finished job
    /// dropped for `--kept-results-bytes`, a sort's values whose file the sort cache removed, or the
    /// results and log of an archived job.
    case gone
    case internalError = "internal"
    /// The server cannot do it now, but will again: a cluster node that cannot reach Redis, or a
    /// page of a job held by a node that is gone.
    case unavailable

    /// The HTTP status the REST API answers with for this code.
    public var httpStatus: Int {
        switch self {
        case .badJSON, .badRequest, .unknownType, .unknownKind: return 400
        case .unauthorized: return 401
        case .forbidden: return 403
        case .notFound: return 404
        case .gone: return 410
        case .busy, .notCancellable, .leaseLost, .kindMismatch: return 409
        case .tooLarge: return 413
        case .rateLimited: return 429
        case .shuttingDown, .unavailable: return 503
        case .internalError: return 500
        }
    }
}
