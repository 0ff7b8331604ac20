/// Durations as people write them on a command line or in a request: a whole number and a unit, `90s`,
/// `15m`, `12h`, `7d` (`herald share --for`, `--session-idle`, `herald keys add --expires`).
public enum DurationText {
    public static func parse(_ text: String) -> Duration? {
        guard let unit = text.last, let count = Int64(text.dropLast()), count > 0, count <= 100_000 else { return nil }
        switch unit {
        case "s": return .seconds(count)
        case "m": return .seconds(count * 60)
        case "h": return .seconds(count * 3_600)
        case "d": return .seconds(count * 86_400)
        default: return nil
        }
    }
}
