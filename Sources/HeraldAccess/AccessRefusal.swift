/// Why a request was refused: `unauthorized` when no identity was shown (or it could not be
/// verified), `forbidden` when a known identity asked for something its role or scope does not
/// allow. The message names what was refused and never repeats a secret.
public struct AccessRefusal: Error, Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case unauthorized
        case forbidden
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public static func forbidden(_ action: AccessAction, by principal: Principal) -> AccessRefusal {
        AccessRefusal(.forbidden, "\(principal.name) (\(principal.role.rawValue)) may not \(action.description)")
    }

    public static func unauthorized(_ why: String) -> AccessRefusal { AccessRefusal(.unauthorized, why) }
}
