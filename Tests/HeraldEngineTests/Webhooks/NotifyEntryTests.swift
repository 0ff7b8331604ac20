import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// The jobs file's `"notify"` entries: where they may be declared, what they hold, and one line
/// naming the problem (never the secret) for everything refused.
final class NotifyEntryTests: XCTestCase {
    private static let secret = "whsec_" + Data("a key of thirty-two bytes, or so".utf8).base64EncodedString()

    private func folder() -> URL {
        let folder = makeTemporaryDirectory().url
        try! Data((Self.secret + "\n").utf8).write(to: folder.appendingPathComponent("hook.secret"))
        try! Data("whsec_not base64!".utf8).write(to: folder.appendingPathComponent("bad.secret"))
        return folder
    }

    private func parse(_ body: String, in folder: URL) throws(JobsFileError) -> JobsFileContents {
        let kinds =
            #""kinds": {"backup": {"command": ["/bin/true"], "notify": [{"on": ["failed"], "webhook": "https://hooks.example/kind", "secretFile": "hook.secret"}]}}"#
        return try JobsFile.parseContents(
            Array("{\(kinds)\(body.isEmpty ? "" : ", ")\(body)}".utf8), file: folder.appendingPathComponent("jobs.json").path,
            searchPath: "/usr/bin:/bin")
    }

    private func problem(_ notify: String) -> String? {
        do {
            _ = try parse("\"notify\": \(notify)", in: folder())
            return nil
        } catch {
            XCTAssertFalse(error.description.contains(Self.secret), "no secret in errors")
            return error.description
        }
    }

    func testEntriesOnTheFileAKindAndASchedule() throws {
        let folder = folder()
        let contents = try parse(
            #"""
            "schedules": {"nightly": {"kind": "backup", "every": "1h", "notify": [{"on": ["succeeded"], "webhook": "http://127.0.0.1:9/s", "secretFile": "\#(folder.path)/hook.secret"}]}},
            "notify": [{"on": ["failed", "timedOut", "cancelled"], "webhook": "http://[::1]:8080/all", "secretFile": "hook.secret"}]
            """#, in: folder)
        let rules = contents.notify
        XCTAssertEqual(rules.everyJob.map(\.webhook), ["http://[::1]:8080/all"])
        XCTAssertEqual(rules.everyJob.first?.on, [.failed, .timedOut, .cancelled])
        XCTAssertEqual(rules.byKind["backup"]?.map(\.webhook), ["https://hooks.example/kind"])
        XCTAssertEqual(rules.bySchedule["nightly"]?.map(\.webhook), ["http://127.0.0.1:9/s"])
        let expected = Array(Data(base64Encoded: String(Self.secret.dropFirst(6)))!)
        XCTAssertEqual(rules.everyJob.first?.secret.key, expected, "a relative secretFile is read from the jobs file's folder")
        XCTAssertEqual(rules.webhooks.count, 3)
        for printed in [
            "\(rules)", String(reflecting: rules),
            {
                var text = ""; dump(rules, to: &text); return text
            }(),
        ] {
            XCTAssertTrue(printed.contains("whsec_…(hidden)"), printed)
            XCTAssertFalse(printed.contains(String(Self.secret.dropFirst(6))), "a printed rule shows no secret")
            XCTAssertFalse(printed.contains("\(expected.prefix(4).map { String($0) }.joined(separator: ", "))"), "nor its bytes")
        }
    }

    func testBadEntriesAreRefusedInOneLine() {
        let cases: [(String, String)] = [
            (#"[{"on": ["failed"], "webhook": "ftp://127.0.0.1/x", "secretFile": "hook.secret"}]"#, "has scheme ftp"),
            (#"[{"on": ["failed"], "webhook": "http://example.com/x", "secretFile": "hook.secret"}]"#, "http:// is only for loopback"),
            (#"[{"on": ["failed"], "webhook": "http://127.0.0.1.example.com/x", "secretFile": "hook.secret"}]"#, "only for loopback"),
            (#"[{"on": ["failed"], "webhook": "https://user:pw@hooks.example/x", "secretFile": "hook.secret"}]"#, "user or password"),
            (#"[{"on": ["failed"], "webhook": "/relative", "secretFile": "hook.secret"}]"#, "not an absolute http(s) URL"),
            (#"[{"on": ["failed"], "webhook": "https://hooks.example/x", "secretFile": "missing.secret"}]"#, "cannot be read"),
            (#"[{"on": ["failed"], "webhook": "https://hooks.example/x", "secretFile": "bad.secret"}]"#, "whsec_ followed by base64"),
            (#"[{"on": ["finished"], "webhook": "https://hooks.example/x", "secretFile": "hook.secret"}]"#, #"has "finished""#),
            (#"[{"on": [], "webhook": "https://hooks.example/x", "secretFile": "hook.secret"}]"#, "non-empty array"),
            (#"[{"on": ["failed"], "webhook": "https://hooks.example/x"}]"#, "\"secretFile\" must name"),
            (#"[{"on": ["failed"], "url": "https://hooks.example/x", "secretFile": "hook.secret"}]"#, #"unknown key "url""#),
            (#"{"on": ["failed"]}"#, "must be an array"),
            (
                #"[{"on": ["failed"], "webhook": "https://hooks.example/kind", "secretFile": "bad.secret"}]"#,
                "whsec_ followed by base64"
            ),
        ]
        for (notify, words) in cases {
            let line = problem(notify)
            XCTAssertTrue(line?.contains(words) == true, "\(notify): \(line ?? "accepted")")
            XCTAssertFalse(line?.contains("\n") ?? true)
        }
    }

    func testOneWebhookWithTwoSecretsIsRefused() throws {
        let folder = folder()
        try Data((Self.secret + "\n").utf8).write(to: folder.appendingPathComponent("other.secret"))
        XCTAssertThrowsError(
            try parse(#""notify": [{"on": ["failed"], "webhook": "https://hooks.example/kind", "secretFile": "other.secret"}]"#, in: folder)
        ) { error in
            XCTAssertTrue("\(error)".contains("two secret files"), "\(error)")
        }
    }

    func testSecrets() {
        XCTAssertEqual(WebhookSecret(text: "whsec_AQID\n")?.key, [1, 2, 3])
        XCTAssertNil(WebhookSecret(text: "AQID"), "the prefix is required")
        XCTAssertNil(WebhookSecret(text: "whsec_"), "an empty key is refused")
        XCTAssertNil(WebhookSecret(text: "whsec_***"))
        XCTAssertEqual("\(WebhookSecret(key: [1, 2, 3]))", "whsec_…(hidden)")
    }

    func testLoopbackHosts() {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]"] {
            XCTAssertTrue(NotifyEntry.isLoopback(host), host)
        }
        for host in ["128.0.0.1", "127.0.0.1.example.com", "localhost.example", "::2", "127.0.0", "example.com"] {
            XCTAssertFalse(NotifyEntry.isLoopback(host), host)
        }
    }
}
