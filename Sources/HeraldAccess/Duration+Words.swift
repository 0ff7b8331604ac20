extension Duration {
    /// Whole milliseconds (rounded down): the unit of the wall-clock times credentials are checked against.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }

    /// How a refusal says a limit: "12 h", "30 days", "1 day", "90 s" (the largest unit it is a whole number of).
    public var words: String {
        let seconds = components.seconds
        if seconds >= 86_400, seconds % 86_400 == 0 { return seconds == 86_400 ? "1 day" : "\(seconds / 86_400) days" }
        if seconds >= 3_600, seconds % 3_600 == 0 { return "\(seconds / 3_600) h" }
        if seconds >= 60, seconds % 60 == 0 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }
}
