import Foundation
import HeraldEngine

/// `herald schedules next EXPR [--timezone Z] [--after EPOCH] [--count N]`: when a cron expression
/// (or `every 10m`) fires, one line per fire time: local ISO-8601 time with its offset, and epoch
/// seconds. `--batch` answers many questions in one process (for tests and scripts): each stdin line
/// `EXPR<TAB>ZONE<TAB>AFTER` gets one line, the next fire's epoch seconds, `none`, or `error: …`.
/// `list`, `pause`, `resume` and `run` ask a server (`ScheduleControlCommand`).
enum SchedulesCommand {
    static let subcommands = ["next"] + ScheduleControlCommand.subcommands

    static let usageText = """
        Usage: herald schedules next EXPR [--timezone ZONE] [--after EPOCH] [--count N]
               herald schedules next --batch
               herald schedules list [--token TOKEN] [--ca FILE] [URL]
               herald schedules pause|resume|run NAME [--token TOKEN] [--ca FILE] [URL]
        """

    static func run(_ argv: [String]) -> Int32 {
        if argv.first == "--help" || argv.first == "-h" {
            print(Help.schedules)
            return 0
        }
        if let subcommand = argv.first, ScheduleControlCommand.subcommands.contains(subcommand) {
            return ScheduleControlCommand.run(subcommand, Array(argv.dropFirst()))
        }
        guard argv.first == "next" else {
            let known = subcommands.joined(separator: ", ")
            return usage(
                argv.first.map { "unknown schedules command \"\($0)\"; the commands are \(known)" }
                    ?? "missing command; the commands are \(known)")
        }
        let arguments: Arguments
        do {
            arguments = try Arguments(Array(argv.dropFirst()), valued: ["timezone", "after", "count"], flags: ["batch", "help"])
        } catch {
            return usage("\(error)")
        }
        if arguments.has("help") {
            print(Help.schedules)
            return 0
        }
        if arguments.has("batch") {
            guard arguments.positionals.isEmpty, arguments.values.isEmpty else {
                return usage("--batch reads its questions from stdin and takes no other arguments")
            }
            return batch()
        }
        guard arguments.positionals.count == 1 else {
            return usage(arguments.positionals.isEmpty ? "missing EXPR" : "give EXPR as one argument, in quotes")
        }
        do {
            let rule = try ScheduleRule(parsing: arguments.positionals[0])
            let zone = try Schedule.timeZone(named: arguments.last("timezone") ?? "UTC")
            let count = try arguments.integer("count", in: 1...10_000) ?? 1
            let after: Int64
            if let text = arguments.last("after") {
                guard let value = Int64(text), abs(value) < 100_000_000_000 else {
                    throw Arguments.UsageError(description: "--after must be epoch seconds, not \"\(text)\"")
                }
                after = value
            } else {
                after = Int64(Date().timeIntervalSince1970.rounded(.down))
            }
            let schedule = Schedule(rule: rule, timeZone: zone)
            let instants = schedule.upcoming(after: after, count: count)
            for instant in instants {
                print("\(Self.localTime(instant, in: zone)) \(instant)")
            }
            if instants.count < count {
                FileHandle.standardError.write(Data("herald: no more fire times within nine years\n".utf8))
                return 1
            }
            return 0
        } catch let error as ScheduleParseError {
            FileHandle.standardError.write(Data("herald: \(error)\n".utf8))
            return 2
        } catch {
            return usage("\(error)")
        }
    }

    /// One answer per stdin line, in order; a bad line is answered `error: …` and the rest go on.
    private static func batch() -> Int32 {
        var zones: [String: TimeZone] = [:]
        var output = ""
        while let line = readLine(strippingNewline: true) {
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            do {
                guard parts.count == 3, let after = Int64(parts[2]) else {
                    throw ScheduleParseError(field: "line", token: line, reason: "must be EXPR<TAB>ZONE<TAB>EPOCH_SECONDS")
                }
                let rule = try ScheduleRule(parsing: parts[0])
                let zone = try zones[parts[1]] ?? Schedule.timeZone(named: parts[1])
                zones[parts[1]] = zone
                output += Schedule(rule: rule, timeZone: zone).next(after: after).map { String($0) } ?? "none"
            } catch {
                output += "error: \(error)"
            }
            output += "\n"
            if output.utf8.count > 65536 {
                FileHandle.standardOutput.write(Data(output.utf8))
                output = ""
            }
        }
        FileHandle.standardOutput.write(Data(output.utf8))
        return 0
    }

    /// `2026-03-29T03:00:00+02:00`: the wall time in `zone` and its offset.
    static func localTime(_ instant: Int64, in zone: TimeZone) -> String {
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant)))
        var components = DateComponents()
        let utc = TimeZone(identifier: "UTC")!
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        components = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: TimeInterval(instant + Int64(offset))))
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let date = "\(components.year!)-\(two(components.month!))-\(two(components.day!))"
        let time = "\(two(components.hour!)):\(two(components.minute!)):\(two(components.second!))"
        return "\(date)T\(time)\(sign)\(two(magnitude / 3600)):\(two(magnitude % 3600 / 60))"
    }

    private static func usage(_ problem: String) -> Int32 {
        FileHandle.standardError.write(Data("herald: \(problem)\n\(usageText)\n".utf8))
        return 2
    }
}
