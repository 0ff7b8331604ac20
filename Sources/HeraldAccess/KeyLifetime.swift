/// How long a new API key lives, as `herald keys add --expires` takes it: a whole number and a unit,
/// `90m`, `12h`, `30d` or `8w`, up to ten years.
public enum KeyLifetime {
    public static let maximumSeconds: Int64 = 3_650 * 86_400

    /// Seconds; nil when `text` is not a number followed by m, h, d or w, or is zero or over ten years.
    public static func seconds(parsing text: String) -> Int64? {
        guard let unit = text.last, let count = Int64(text.dropLast()), count > 0, text.first?.isNumber == true else { return nil }
        let unitSeconds: Int64
        switch unit {
        case "m": unitSeconds = 60
        case "h": unitSeconds = 3_600
        case "d": unitSeconds = 86_400
        case "w": unitSeconds = 7 * 86_400
        default: return nil
        }
        guard count <= maximumSeconds / unitSeconds else { return nil }
        return count * unitSeconds
    }
}
