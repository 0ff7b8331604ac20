/// The answer to a resume: the missed events, or a snapshot when they are gone or the epoch differs.
public enum ResumeAnswer: Sendable {
    case events([EncodedEvent])
    case snapshot(Snapshot)
}
