extension Duration {
    /// Whole milliseconds (rounded down): the unit of the wall-clock times credentials are checked against.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}
