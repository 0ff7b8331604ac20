import XCTest

@testable import HeraldEngine

/// The jobs file's `"schedules"`: what a declaration holds, its defaults, and one line naming the
/// schedule for everything refused.
final class JobsFileScheduleTests: XCTestCase {
    private static let kinds = #"""
        "kinds": {"backup": {"command": ["/bin/echo", "{src}"], "params": {
          "src": {"type": "string", "required": true, "pattern": "^/srv/"},
          "level": {"type": "integer", "minimum": 1, "maximum": 9, "default": 3}}}}
        """#

    private func parse(schedules: String) throws(JobsFileError) -> JobsFileContents {
        try JobsFile.parseContents(
            Array("{\(Self.kinds), \"schedules\": {\(schedules)}}".utf8), file: "jobs.json", searchPath: "/usr/bin:/bin")
    }

    private func problem(_ schedules: String) -> String? {
        do {
            _ = try parse(schedules: schedules)
            return nil
        } catch {
            return error.description
        }
    }

    func testAFullDeclarationIsRead() throws {
        let contents = try parse(
            schedules: #"""
                "nightly-backup": {"kind": "backup", "params": {"src": "/srv/photos"}, "cron": "30 2 * * *",
                  "timezone": "Europe/Berlin", "overlap": "replace", "catchUp": "all", "catchUpLimit": 5, "jitter": 30, "paused": true}
                """#)
        XCTAssertEqual(contents.kinds.map(\.name), ["backup"])
        let schedule = try XCTUnwrap(contents.schedules.first)
        XCTAssertEqual(schedule.name, "nightly-backup")
        XCTAssertEqual(schedule.kind, "backup")
        XCTAssertEqual(schedule.params, ["src": "/srv/photos", "level": 3], "params are checked and defaults filled in")
        XCTAssertEqual(schedule.schedule.rule, .cron(try CronExpression("30 2 * * *")))
        XCTAssertEqual(schedule.schedule.timeZone.identifier, "Europe/Berlin")
        XCTAssertEqual(schedule.timeZoneName, "Europe/Berlin")
        XCTAssertEqual(schedule.overlap, .replace)
        XCTAssertEqual(schedule.catchUp, .all)
        XCTAssertEqual(schedule.catchUpLimit, 5)
        XCTAssertEqual(schedule.jitter, 30)
        XCTAssertTrue(schedule.paused)
    }

    func testDefaults() throws {
        let contents = try parse(schedules: #""often": {"kind": "backup", "params": {"src": "/srv/a"}, "every": "10m"}"#)
        let schedule = try XCTUnwrap(contents.schedules.first)
        XCTAssertEqual(schedule.schedule.rule, .every(try EveryInterval("10m")))
        XCTAssertEqual(schedule.timeZoneName, "UTC")
        XCTAssertEqual(schedule.schedule.timeZone.secondsFromGMT(), 0)
        XCTAssertEqual(schedule.overlap, .skip)
        XCTAssertEqual(schedule.catchUp, .one)
        XCTAssertEqual(schedule.catchUpLimit, ScheduleDeclaration.defaultCatchUpLimit)
        XCTAssertEqual(schedule.jitter, 0)
        XCTAssertFalse(schedule.paused)
    }

    func testAFileWithoutSchedulesHasNone() throws {
        let contents = try JobsFile.parseContents(Array("{\(Self.kinds)}".utf8), file: "jobs.json", searchPath: nil)
        XCTAssertTrue(contents.schedules.isEmpty)
    }

    func testEveryProblemIsOneLineNamingTheSchedule() {
        let good = #""kind": "backup", "params": {"src": "/srv/a"}"#
        let cases: [(String, String)] = [
            (#""s": {\#(good), "cron": "61 * * * *"}"#, #"jobs.json: schedule "s": "cron": minute "61": 61 is out of range (0-59)"#),
            (#""s": {\#(good), "cron": "* * * *"}"#, #"schedule "s": "cron": expression "* * * *": must have 5 fields"#),
            (#""s": {\#(good), "cron": "0 0 * * FUNDAY"}"#, #"schedule "s": "cron": day-of-week "FUNDAY""#),
            (#""s": {\#(good), "every": "10x"}"#, #"schedule "s": "every": every "10x": "x" is not a unit"#),
            (#""s": {\#(good), "cron": "0 * * * *", "every": "1h"}"#, #"schedule "s": has both "cron" and "every""#),
            (#""s": {\#(good)}"#, #"schedule "s": needs "cron" or "every""#),
            (#""s": {\#(good), "cron": 5}"#, #"schedule "s": "cron" must be a string"#),
            (
                #""s": {\#(good), "cron": "0 * * * *", "timezone": "Mars/Olympus"}"#,
                #"schedule "s": "timezone" "Mars/Olympus" is not a time zone"#
            ),
            (#""s": {\#(good), "every": "1h", "timezone": "UTC"}"#, #"schedule "s": "timezone" is for "cron""#),
            (#""s": {"kind": "restore", "cron": "0 * * * *"}"#, #"schedule "s": "kind" "restore" is not a kind of this file (backup)"#),
            (#""s": {"kind": "search", "cron": "0 * * * *"}"#, #""kind" "search" is not a kind of this file"#),
            (#""s": {"cron": "0 * * * *"}"#, #"schedule "s": "kind" must be a string"#),
            (#""s": {"kind": "backup", "cron": "0 * * * *"}"#, #"schedule "s": "params" refused by kind "backup": src: required"#),
            (
                #""s": {"kind": "backup", "params": {"src": "/etc"}, "cron": "0 * * * *"}"#,
                #""params" refused by kind "backup": src: must match ^/srv/"#
            ),
            (
                #""s": {"kind": "backup", "params": {"src": "/srv/a", "level": 10}, "cron": "0 * * * *"}"#,
                #"level: must be at most 9"#
            ),
            (
                #""s": {"kind": "backup", "params": {"src": "/srv/a", "extra": true}, "cron": "0 * * * *"}"#,
                #"extra: unknown param; backup takes src, level"#
            ),
            (#""s": {\#(good), "cron": "0 * * * *", "colour": "red"}"#, #"schedule "s": unknown key "colour""#),
            (#""s": {\#(good), "cron": "0 * * * *", "overlap": "wait"}"#, #""overlap" must be "skip", "queue" or "replace""#),
            (#""s": {\#(good), "cron": "0 * * * *", "catchUp": "some"}"#, #""catchUp" must be "none", "one" or "all""#),
            (#""s": {\#(good), "cron": "0 * * * *", "catchUp": "all", "catchUpLimit": 0}"#, #""catchUpLimit" must be a whole number"#),
            (#""s": {\#(good), "cron": "0 * * * *", "catchUpLimit": 5}"#, #""catchUpLimit" is for "catchUp": "all""#),
            (#""s": {\#(good), "cron": "0 * * * *", "jitter": -1}"#, #""jitter" must be a number of seconds from 0 to 3600"#),
            (#""s": {\#(good), "cron": "0 * * * *", "paused": "no"}"#, #""paused" must be true or false"#),
            (#""Nightly": {\#(good), "cron": "0 * * * *"}"#, #"schedule "Nightly": a schedule's name must match"#),
            (#""s": 5"#, #"schedule "s": must be an object"#),
        ]
        for (schedules, expected) in cases {
            let problem = self.problem(schedules)
            XCTAssertTrue(problem?.contains(expected) == true, "\(schedules) → \(problem ?? "accepted"), expected \(expected)")
            XCTAssertFalse(problem?.contains("\n") ?? false)
        }
        let notAnObject = try? JobsFile.parseContents(Array("{\(Self.kinds), \"schedules\": []}".utf8), file: "jobs.json", searchPath: nil)
        XCTAssertNil(notAnObject)
    }

    func testLoadRefusesABadScheduleToo() {
        // `herald serve` and `herald work` read kinds through `load`: a bad schedule stops them as well.
        let text =
            "{\(Self.kinds), \"schedules\": {\"s\": {\"kind\": \"backup\", \"params\": {\"src\": \"/srv/a\"}, \"cron\": \"99 * * * *\"}}}"
        XCTAssertThrowsError(try JobsFile.parse(Array(text.utf8), file: "jobs.json", searchPath: "/usr/bin:/bin")) { error in
            XCTAssertEqual((error as? JobsFileError)?.schedule, "s")
        }
    }
}
