/// One parsed field of a cron expression: the set of values it allows, as a bit mask (bit n: value n).
/// A plain value; any thread.
///
/// Syntax of a field: a comma-separated list of items; an item is `*`, a value, a range `A-B`, or
/// any of those with a step `/S` (`*/15`, `1-30/5`, and `5/15`, which means `5-59/15`). Months and
/// days of the week may be named (`JAN`…`DEC`, `SUN`…`SAT`, any case); day-of-week 7 is Sunday, like 0.
public struct CronField: Sendable, Equatable {
    public let kind: CronFieldKind
    /// Bit n set: value n allowed.
    public let mask: UInt64
    /// The field is exactly `*`. Only this counts as "unrestricted" for the day-of-month /
    /// day-of-week rule (`CronExpression.matchesDay`); `*/2` or `1-31` restrict.
    public let isStar: Bool

    init(kind: CronFieldKind, mask: UInt64, isStar: Bool) {
        self.kind = kind
        self.mask = mask
        self.isStar = isStar
    }

    public func allows(_ value: Int) -> Bool { value >= 0 && value < 64 && mask & (1 << UInt64(value)) != 0 }

    /// The smallest allowed value ≥ `value`, or nil.
    func next(atOrAfter value: Int) -> Int? {
        guard value < 64 else { return nil }
        let above = mask >> UInt64(max(value, 0))
        return above == 0 ? nil : max(value, 0) + above.trailingZeroBitCount
    }

    /// The smallest allowed value.
    var first: Int { mask.trailingZeroBitCount }

    /// Every allowed value, in order.
    public var allowedValues: [Int] { kind.values.filter(allows) }

    /// Parses one field's text; the error names the field and the offending token.
    static func parse(_ text: Substring, as kind: CronFieldKind) throws(ScheduleParseError) -> CronField {
        var mask: UInt64 = 0
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            mask |= try parseItem(item, kind: kind)
        }
        if kind == .dayOfWeek, mask & (1 << 7) != 0 { mask = (mask & ~(1 << 7)) | 1 }
        return CronField(kind: kind, mask: mask, isStar: text == "*")
    }

    private static func parseItem(_ item: Substring, kind: CronFieldKind) throws(ScheduleParseError) -> UInt64 {
        func failure(_ reason: String) -> ScheduleParseError {
            ScheduleParseError(field: kind.description, token: String(item), reason: reason)
        }
        guard !item.isEmpty else { throw failure("empty item (two commas, or a comma at an end)") }
        let parts = item.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw failure("more than one \"/\"") }
        var step = 1
        if parts.count == 2 {
            guard let value = digits(parts[1]), value >= 1, value <= kind.range.count else {
                throw failure("the step after \"/\" must be a whole number from 1 to \(kind.range.count)")
            }
            step = value
        }
        let base = parts[0]
        let low: Int
        let high: Int
        if base == "*" {
            low = kind.values.lowerBound
            high = kind.values.upperBound
        } else {
            let bounds = base.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count <= 2 else { throw failure("more than one \"-\"") }
            low = try value(bounds[0], kind: kind, item: item)
            if bounds.count == 2 {
                high = try value(bounds[1], kind: kind, item: item)
                guard low <= high else { throw failure("a range must go upwards (\(low) is after \(high))") }
            } else {
                // `5/15` means from 5 to the end of the range, in steps of 15.
                high = parts.count == 2 ? kind.values.upperBound : low
            }
        }
        var mask: UInt64 = 0
        for value in stride(from: low, through: high, by: step) { mask |= 1 << UInt64(value) }
        return mask
    }

    /// A number written with digits only (no sign, no spaces).
    private static func digits(_ token: Substring) -> Int? {
        guard !token.isEmpty, token.count <= 4, token.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(token)
    }

    private static func value(_ token: Substring, kind: CronFieldKind, item: Substring) throws(ScheduleParseError) -> Int {
        if let number = digits(token) {
            guard kind.range.contains(number) else {
                throw ScheduleParseError(
                    field: kind.description, token: String(item),
                    reason: "\(number) is out of range (\(kind.range.lowerBound)-\(kind.range.upperBound))")
            }
            return number
        }
        if let named = kind.names[token.lowercased()] { return named }
        let expected =
            kind.names.isEmpty
            ? "a number from \(kind.range.lowerBound) to \(kind.range.upperBound)"
            : "a number from \(kind.range.lowerBound) to \(kind.range.upperBound) or a name such as \(kind == .month ? "JAN" : "MON")"
        throw ScheduleParseError(field: kind.description, token: String(item), reason: "\"\(token)\" is not \(expected)")
    }
}
