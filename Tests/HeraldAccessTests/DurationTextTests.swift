import HeraldSupport
import Testing

/// One reading of durations for `--expires`, `--for`, a share's `for` and `--session-idle`.
@Suite struct DurationTextTests {
    @Test(arguments: [
        ("90s", Int64(90)), ("15m", 900), ("12h", 43_200), ("7d", 604_800), ("2w", 1_209_600), ("036500d", 3_153_600_000),
    ])
    func aNumberAndOneUnitIsRead(text: String, seconds: Int64) {
        #expect(DurationText.seconds(parsing: text) == seconds)
        #expect(DurationText.parse(text) == .seconds(seconds))
    }

    @Test(arguments: [
        "", "s", "0s", "-1h", "+1h", " 1h", "1h ", "1 h", "1.5h", "1h30m", "30", "30y", "1H", "36501d", "5215w",
        "9999999999999999999s", "١h",
    ])
    func anythingElseIsRefused(text: String) {
        #expect(DurationText.seconds(parsing: text) == nil)
        #expect(DurationText.parse(text) == nil)
    }

    @Test func theRefusalNamesEveryUnitItTakes() {
        for unit in ["s", "m", "h", "d", "w"] {
            #expect(DurationText.expected.contains(" \(unit)"), "\(unit)")
            #expect(DurationText.seconds(parsing: "1" + unit) != nil, "\(unit)")
        }
    }
}
