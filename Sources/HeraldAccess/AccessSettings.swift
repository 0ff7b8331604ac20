/// Which identities a server takes, from `herald serve`'s flags (docs/security.md).
public struct AccessSettings: Sendable {
    /// `--token`: one shared secret that may do everything (an admin named `token`).
    public var controlToken: String?
    /// `--worker-token`: one shared secret for every worker.
    public var workerToken: String?
    /// Set when any identity is configured (a users file, JWT keys, a trusted proxy): anonymous
    /// requests are then refused unless `publicView`.
    public var identitiesRequired = false
    /// `--public-view`: with identities on, anonymous clients may still watch (as viewers).
    public var publicView = false
    /// `--trust-user-header` and `--trusted-proxy`.
    public var trustedProxy: TrustedProxy?

    public init() {}

    public struct TrustedProxy: Sendable {
        /// The header the proxy sets (e.g. `X-Forwarded-User`), lowercased.
        public var header: String
        public var addresses: [AddressRange]
        /// The role of users the proxy names (`--proxy-role`, default operator).
        public var role: Role

        public init(header: String, addresses: [AddressRange], role: Role = .operator) {
            self.header = header.lowercased()
            self.addresses = addresses
            self.role = role
        }
    }
}
