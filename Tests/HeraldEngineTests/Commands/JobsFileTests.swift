import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// The jobs file: what it accepts, and one clear line for everything it refuses.
final class JobsFileTests: XCTestCase {
    private func parse(_ text: String) throws(JobsFileError) -> [CommandKind] {
        try JobsFile.parse(Array(text.utf8), file: "jobs.json", searchPath: "/usr/bin:/bin")
    }

    private func problem(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    func testAFullDeclarationIsRead() throws {
        let kinds = try parse(
            #"""
            {"kinds": {"backup": {
              "title": "Back up a folder",
              "command": ["/bin/echo", "-n", "{src}", "/backups/{name}"],
              "params": {
                "src": {"type": "string", "required": true, "pattern": "^/srv/[A-Za-z0-9/_.-]+$"},
                "name": {"type": "string", "default": "nightly", "maxLength": 64, "pattern": "^[a-z0-9-]+$"},
                "level": {"type": "integer", "minimum": 1, "maximum": 9, "default": 3},
                "mode": {"type": "string", "enum": ["full", "incremental"], "default": "full"},
                "dryRun": {"type": "boolean", "default": false, "flag": "--dry-run"}
              },
              "concurrency": 2, "whenBusy": "refuse", "timeout": 3600, "grace": 10, "retries": 2, "retryDelay": 5,
              "cwd": "/", "env": {"LANG": "C.UTF-8"}, "progressFrom": "fd3"}}}
            """#)
        XCTAssertEqual(kinds.count, 1)
        let kind = try XCTUnwrap(kinds.first)
        XCTAssertEqual(kind.name, "backup")
        XCTAssertEqual(kind.title, "Back up a folder")
        XCTAssertEqual(kind.params.map(\.name), ["src", "name", "level", "mode", "dryRun"], "declaration order is kept")
        XCTAssertEqual(kind.concurrency, 2)
        XCTAssertEqual(kind.whenBusy, .refuse)
        XCTAssertEqual(kind.timeout, 3600)
        XCTAssertEqual(kind.retries, 2)
        XCTAssertEqual(kind.environment, ["LANG": "C.UTF-8"])
        XCTAssertEqual(kind.progressFrom, .fd3)
    }

    func testEveryRefusalNamesTheFileTheKindAndTheProblem() {
        let cases: [(String, String)] = [
            ("{", "jobs.json: not valid JSON"),
            (#"{"kinds": {}, "extra": 1}"#, #"jobs.json: unknown key "extra""#),
            (#"{"kinds": {"search": {"command": ["/bin/true"]}}}"#, #"jobs.json: kind "search": is a built-in kind's name"#),
            (#"{"kinds": {"Bad Name": {"command": ["/bin/true"]}}}"#, #"jobs.json: kind "Bad Name": a kind's name must match"#),
            (#"{"kinds": {"a": {"command": ["/bin/true"], "colour": "red"}}}"#, #"jobs.json: kind "a": unknown key "colour""#),
            (#"{"kinds": {"a": {"command": ["/bin/echo", "{who}"]}}}"#, #"jobs.json: kind "a": placeholder {who} names no declared param"#),
            (
                #"{"kinds": {"a": {"command": ["/no/such/program"]}}}"#,
                #"jobs.json: kind "a": command[0] "/no/such/program" is not an executable file"#
            ),
            (#"{"kinds": {"a": {"command": ["no-such-program-anywhere"]}}}"#, #"is not an executable file"#),
            (#"{"kinds": {"a": {"command": []}}}"#, #""command" must be a non-empty array of strings"#),
            (#"{"kinds": {"a": {"command": ["/bin/true"], "params": {"n": {"type": "float"}}}}}"#, #"param "n": "type" must be one of"#),
            (
                #"{"kinds": {"a": {"command": ["/bin/true"], "params": {"n": {"type": "integer", "default": "x"}}}}}"#,
                #"param "n": "default": default: must be an integer"#
            ),
            (
                #"{"kinds": {"a": {"command": ["/bin/true"], "params": {"s": {"type": "string", "pattern": "("}}}}}"#,
                "not a valid regular expression"
            ),
            (#"{"kinds": {"a": {"command": ["/bin/true"], "whenBusy": "wait"}}}"#, #""whenBusy" must be "queue" or "refuse""#),
            (#"{"kinds": {"a": {"command": ["/bin/true"], "concurrency": 0}}}"#, #""concurrency" must be a whole number"#),
            (#"{"kinds": {"a": {"command": ["/bin/true"], "cwd": "/no/such/folder"}}}"#, #""cwd" "/no/such/folder" is not a folder"#),
            (#"{"kinds": {"a": {"command": ["/bin/true"], "env": {"A": 1}}}}"#, #""env" must be an object of strings"#),
        ]
        for (text, expected) in cases {
            let problem = self.problem(text)
            XCTAssertTrue(problem?.contains(expected) == true, "\(text) → \(problem ?? "accepted"), expected \(expected)")
        }
    }

    func testAnUnreadableFileSaysSo() {
        XCTAssertThrowsError(try JobsFile.load(path: "/no/such/jobs.json")) { error in
            XCTAssertEqual("\(error)", "/no/such/jobs.json: cannot be read (no such file)")
        }
    }

    func testBareCommandsAreFoundOnThePath() throws {
        let kinds = try parse(#"{"kinds": {"a": {"command": ["sh", "-c", "true"]}}}"#)
        XCTAssertEqual(kinds.first?.command?.first, "sh")
        XCTAssertNotNil(JobsFile.executable("sh", searchPath: "/usr/bin:/bin"))
        XCTAssertNil(JobsFile.executable("sh", searchPath: ""), "an empty PATH finds nothing")
    }
}
