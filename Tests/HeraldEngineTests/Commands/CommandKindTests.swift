import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// Params are checked before anything runs, and argv is built without a shell.
final class CommandKindTests: XCTestCase {
    private func kind() throws -> CommandKind {
        let kinds = try JobsFile.parse(
            Array(
                #"""
                {"kinds": {"backup": {"command": ["/bin/echo", "{src}", "/backups/{name}", "--level={level}"],
                  "params": {
                    "src": {"type": "string", "required": true, "pattern": "^/srv/"},
                    "name": {"type": "string", "default": "nightly", "maxLength": 8},
                    "level": {"type": "integer", "minimum": 1, "maximum": 9, "default": 3},
                    "mode": {"type": "string", "enum": ["full", "incremental"], "default": "full"},
                    "ratio": {"type": "number", "minimum": 0.5},
                    "dryRun": {"type": "boolean", "default": false, "flag": "--dry-run"}}}}}
                """#.utf8), file: "f", searchPath: nil)
        return try XCTUnwrap(kinds.first)
    }

    func testDefaultsAreFilledAndValuesChecked() throws {
        let kind = try kind()
        let params = try kind.validate(["src": "/srv/photos", "level": 5.0])
        XCTAssertEqual(params, ["src": "/srv/photos", "name": "nightly", "level": 5, "mode": "full", "dryRun": false])
    }

    func testEveryRefusalNamesTheParam() throws {
        let kind = try kind()
        let cases: [(JSONObject, String)] = [
            ([:], "src: required"),
            (["src": "/etc/passwd"], "src: must match ^/srv/"),
            (["src": 3], "src: must be a string"),
            (["src": "/srv/x", "name": "much-too-long"], "name: must be at most 8 characters"),
            (["src": "/srv/x", "level": 10], "level: must be at most 9"),
            (["src": "/srv/x", "level": 2.5], "level: must be an integer"),
            (["src": "/srv/x", "mode": "partial"], #"mode: must be one of "full", "incremental""#),
            (["src": "/srv/x", "ratio": 0.1], "ratio: must be at least 0.5"),
            (["src": "/srv/x", "dryRun": "yes"], "dryRun: must be true or false"),
            (["src": "/srv/x", "colour": "red"], "colour: unknown param"),
        ]
        for (params, expected) in cases {
            XCTAssertThrowsError(try kind.validate(params), "\(params)") { error in
                XCTAssertEqual((error as? EngineError)?.code, .badRequest)
                XCTAssertTrue("\(error)".contains(expected), "\(params): \(error), expected \(expected)")
            }
        }
    }

    func testArgvReplacesPlaceholdersInsideOneElementAndNeverSplits() throws {
        let kind = try kind()
        let params = try kind.validate(["src": "/srv/x; rm -rf /", "dryRun": true])
        XCTAssertEqual(kind.argv(for: params), ["/bin/echo", "/srv/x; rm -rf /", "/backups/nightly", "--level=3", "--dry-run"])
        XCTAssertEqual(kind.argv(for: try kind.validate(["src": "/srv/y"])).last, "--level=3", "no flag when false")
    }

    func testTheSnapshotDescribesTheKind() throws {
        let entry = try kind().json
        XCTAssertEqual(entry["title"], "backup", "the title defaults to the name")
        XCTAssertEqual(entry["params"]?["src"]?["required"], true)
        XCTAssertEqual(entry["params"]?["mode"]?["enum"], ["full", "incremental"])
    }
}
