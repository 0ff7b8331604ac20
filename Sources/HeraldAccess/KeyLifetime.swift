import HeraldSupport

/// How long a new API key lives, as `herald keys add --expires` takes it: a duration
/// (`DurationText`: `90m`, `12h`, `30d`, `8w`), up to ten years.
public enum KeyLifetime {
    public static let maximumSeconds: Int64 = 3_650 * 86_400

    /// Seconds; nil when `text` is not a duration or is over ten years.
    public static func seconds(parsing text: String) -> Int64? {
        DurationText.seconds(parsing: text).flatMap { $0 <= maximumSeconds ? $0 : nil }
    }
}
