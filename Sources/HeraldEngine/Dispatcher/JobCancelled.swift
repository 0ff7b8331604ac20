/// Thrown by a job that noticed it was cancelled.
public struct JobCancelled: Error, Equatable {
    public init() {}
}
