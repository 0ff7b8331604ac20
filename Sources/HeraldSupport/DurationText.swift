/// Durations as people write them on a command line or in a request: a whole number and one unit,
/// `90s`, `15m`, `12h`, `7d` or `2w` (`herald share --for`, a share request's `for`, `--session-idle`,
/// `herald keys add --expires`). One reading for all of them; each caller bounds what it takes.
public enum DurationText {
    /// What a refusal says a duration looks like.
    public static let expected = "a whole number and s, m, h, d or w, like 90s, 15m, 12h, 7d or 2w"
    /// The longest duration read: a hundred years.
    public static let maximumSeconds: Int64 = 36_500 * 86_400

    /// Seconds; nil unless `text` is decimal digits and one unit, above zero and at most `maximumSeconds`.
    public static func seconds(parsing text: String) -> Int64? {
        guard let unit = text.last else { return nil }
        let digits = text.dropLast()
        guard !digits.isEmpty, digits.utf8.count <= 18, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let count = Int64(digits), count > 0
        else { return nil }
        let unitSeconds: Int64
        switch unit {
        case "s": unitSeconds = 1
        case "m": unitSeconds = 60
        case "h": unitSeconds = 3_600
        case "d": unitSeconds = 86_400
        case "w": unitSeconds = 7 * 86_400
        default: return nil
        }
        guard count <= maximumSeconds / unitSeconds else { return nil }
        return count * unitSeconds
    }

    public static func parse(_ text: String) -> Duration? {
        seconds(parsing: text).map { .seconds($0) }
    }
}
