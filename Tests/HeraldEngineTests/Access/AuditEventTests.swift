@testable import HeraldEngine
import Foundation
import HeraldAccess
import Testing

@Suite struct AuditEventTests {
    private let now: Int64 = 1_796_558_468_123  // 2026-12-06T12:01:08.123Z

    @Test func theLineHasTheDocumentedFields() throws {
        let ann = Principal(name: "ann", role: .operator, source: .key(name: "ann-ci"))
        let event = AuditEvent.start(by: ann, job: "j-7", kind: "deploy", address: "10.0.0.1", at: now)
        #expect(
            JSONWriter.string(event.json)
                == #"{"ts":"2026-12-06T12:01:08.123Z","event":"start","actor":"ann","address":"10.0.0.1","job":"j-7","kind":"deploy"}"#)
        #expect(AuditEvent(json: event.json) == event)
        let failed = AuditEvent.signInFailed(knownUser: "ann", address: "10.0.0.2", at: 5)
        #expect(
            JSONWriter.string(failed.json)
                == #"{"ts":"1970-01-01T00:00:00.005Z","event":"signin_failed","actor":"ann","address":"10.0.0.2","detail":"wrong password"}"#
        )
        let unknown = AuditEvent.signInFailed(knownUser: nil, address: nil, at: 5)
        #expect(unknown.actor == "(unknown user)" && unknown.detail == "no such user")
        #expect(AuditEvent(json: failed.json) == failed)
    }

    @Test func timestampsRoundTripAndMatchFoundation() throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for millis: Int64 in [0, 999, 1_000, 951_782_400_000, now, 4_102_444_799_999] {
            let event = AuditEvent.usersReloaded(users: 1, keys: 0, sessionsEnded: 0, at: millis)
            let ts = try #require(event.json["ts"]?.stringValue)
            let date = try #require(formatter.date(from: ts))
            #expect(Int64((date.timeIntervalSince1970 * 1000).rounded()) == millis)
            #expect(AuditEvent(json: event.json)?.time == millis)
        }
    }

    /// Every secret a sign-in, a session, a key and a share link involve goes through the real types;
    /// the events are built from what those types hand back (principals, records, names). None of
    /// the secrets appears in any line: the factories cannot take one.
    @Test func noEventCanCarryASecret() throws {
        let password = "correct horse battery staple"
        var sessions = SessionTable()
        let ann = Principal(name: "ann", role: .admin, source: .anonymous)
        let (session, cookie) = sessions.create(for: ann, address: "10.0.0.1", now: now)
        let signedIn = try sessions.principal(forCookie: cookie, now: now).get()
        var links = try ShareLinks()
        let (token, link) = try links.make(job: "j-1", creator: signedIn.name, lifetime: .seconds(60), now: now).get()
        let viewer = try links.verify(token, now: now).get()
        let key = Principal(name: "ci", role: .operator, source: .key(name: "ci"))
        let refusal = try #require(links.verify(token + "x", now: now).error)

        let events: [AuditEvent] = [
            .signIn(signedIn, address: "10.0.0.1", at: now),
            .signInFailed(knownUser: "ann", address: "10.0.0.1", at: now),
            // Someone typed the password into the user field: a name that is no user is not recorded.
            .signInFailed(knownUser: nil, address: "10.0.0.1", at: now),
            .credentialUsed(key, address: nil, at: now),
            .credentialUsed(signedIn, address: nil, at: now),
            .start(by: signedIn, job: "j-1", kind: "search", address: nil, at: now),
            .cancel(by: key, job: "j-1", kind: nil, address: nil, at: now),
            .refused(refusal, principal: nil, address: "10.0.0.9", at: now),
            .refused(.forbidden(.readAudit, by: viewer), principal: viewer, address: nil, job: "j-1", at: now),
            .shareMade(link, address: nil, at: now),
            .shareUsed(viewer, address: "10.0.0.3", at: now),
            .shareRevoked(link, by: signedIn, at: now),
            .allSharesRevoked(count: 1, by: signedIn, at: now),
            .usersReloaded(users: 3, keys: 2, sessionsEnded: 1, at: now),
            .sessionRevoked(session, by: signedIn, at: now),
        ]
        #expect(Set(events.map(\.kind)) == Set(AuditEvent.Kind.allCases))
        let secrets = [
            password, cookie, String(cookie.split(separator: ".")[1]), token, String(token.split(separator: ".")[1]), links.state.key,
        ]
        for event in events {
            let line = JSONWriter.string(event.json)
            for secret in secrets { #expect(!line.contains(secret), "\(event.kind) holds a secret: \(line)") }
            // Only the documented keys.
            let keys = Set(try #require(event.json.objectValue).keys)
            #expect(keys.isSubset(of: ["ts", "event", "actor", "address", "job", "kind", "detail"]))
        }
        #expect(JSONWriter.string(AuditEvent.shareUsed(viewer, address: nil, at: now).json).contains(#""job":"j-1""#))
    }

    @Test func longFieldsAreCut() {
        let event = AuditEvent.signInFailed(knownUser: String(repeating: "x", count: 100_000), address: nil, at: now)
        #expect(event.actor.utf8.count == 512)
    }
}
