import HeraldAccess

extension EngineError {
    /// A refusal of access as the protocol's error: `unauthorized` or `forbidden`, with its message.
    public init(_ refusal: AccessRefusal) {
        self.init(refusal.kind == .forbidden ? .forbidden : .unauthorized, refusal.message)
    }
}
