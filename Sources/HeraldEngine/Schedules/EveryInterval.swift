/// An `every` interval: "10s", "10m", "2h", "1d", or several units largest first ("1h30m",
/// "2h15m30s"). It fires on the whole multiples of the interval counted from 1970-01-01 00:00:00
/// UTC, so a restart does not shift it and neither time zones nor DST touch it ("1d" fires at
/// midnight UTC; a local time of day is a cron expression's job). A plain value; any thread.
public struct EveryInterval: Sendable, Equatable, CustomStringConvertible {
    public let seconds: Int64
    /// The text it was parsed from.
    public let text: String

    /// At most a year: longer intervals are better said as a cron expression.
    public static let maximumSeconds: Int64 = 366 * 86400

    public init(_ text: String) throws(ScheduleParseError) {
        func failure(_ reason: String) -> ScheduleParseError { ScheduleParseError(field: "every", token: text, reason: reason) }
        let units: [(Character, Int64)] = [("d", 86400), ("h", 3600), ("m", 60), ("s", 1)]
        var total: Int64 = 0
        var digits = ""
        var nextUnit = 0
        for character in text {
            if character.isASCII && character.isNumber {
                guard digits.count < 9 else { throw failure("a number is too long") }
                digits.append(character)
                continue
            }
            guard let index = units.firstIndex(where: { $0.0 == character }) else {
                throw failure("\"\(character)\" is not a unit; write a number and s, m, h or d, such as 10m or 1h30m")
            }
            guard !digits.isEmpty else { throw failure("\"\(character)\" needs a number before it") }
            guard index >= nextUnit else { throw failure("units go largest first, each once (1h30m, not 30m1h)") }
            total += Int64(digits)! * units[index].1
            digits = ""
            nextUnit = index + 1
        }
        guard digits.isEmpty else { throw failure("\"\(digits)\" needs a unit: s, m, h or d") }
        guard nextUnit > 0 else { throw failure("empty; write a number and s, m, h or d, such as 10m") }
        guard total >= 1 else { throw failure("must be at least 1s") }
        guard total <= Self.maximumSeconds else { throw failure("must be at most 366d") }
        seconds = total
        self.text = text
    }

    /// The first multiple of the interval strictly after `instant` (epoch seconds).
    public func next(after instant: Int64) -> Int64 {
        (CivilCalendar.floorDivide(instant, seconds) + 1) * seconds
    }

    public var description: String { text }
}
