import HeraldAccess
import Testing

@Suite struct SessionTableTests {
    private let ann = Principal(name: "ann", role: .operator, source: .anonymous)
    private let bob = Principal(name: "bob", role: .viewer, source: .anonymous)

    @Test func aCookieStandsForItsPrincipalAsASession() throws {
        var table = SessionTable()
        let (session, cookie) = table.create(for: ann, address: "10.0.0.1", now: 0)
        let principal = try table.principal(forCookie: cookie, now: 1).get()
        #expect(principal.name == "ann")
        #expect(principal.role == .operator)
        #expect(principal.source == .session(user: "ann", session: session.id))
        // The cookie is `<id>.<secret>`: the id is public, the secret is 32 bytes of base64url.
        let parts = cookie.split(separator: ".")
        #expect(parts.count == 2 && parts[0] == session.id && parts[1].count == 43)
        #expect(session.address == "10.0.0.1")
    }

    @Test func aWrongSecretForARealIdIsRefusedAndNamesNoSecret() throws {
        var table = SessionTable()
        let (session, cookie) = table.create(for: ann, address: nil, now: 0)
        var forged = Array(cookie)
        forged[forged.count - 2] = forged[forged.count - 2] == "A" ? "B" : "A"
        let refusal = try #require(table.principal(forCookie: String(forged), now: 1).failure)
        #expect(refusal.kind == .unauthorized)
        #expect(!refusal.message.contains(String(cookie.split(separator: ".")[1])))
        #expect(!refusal.message.contains(session.id))
        for junk in ["", ".", "x.y", session.id, session.id + ".", String(repeating: "a", count: 10_000)] {
            #expect(table.principal(forCookie: junk, now: 1).failure?.kind == .unauthorized)
        }
        // The real cookie still works: a forgery does not end the session.
        #expect(throws: Never.self) { try table.principal(forCookie: cookie, now: 2).get() }
    }

    @Test func sessionsEndAfterTheIdleTimeUnlessUsed() {
        var table = SessionTable(idleTimeout: .seconds(60))
        let (_, kept) = table.create(for: ann, address: nil, now: 0)
        let (_, idle) = table.create(for: bob, address: nil, now: 0)
        // Used every 50 s, `kept` lives on; `idle` ends at 60 s.
        for step in 1...5 { #expect(table.principal(forCookie: kept, now: Int64(step) * 50_000).success != nil) }
        let refusal = table.principal(forCookie: idle, now: 250_000).failure
        #expect(refusal?.message == "the session expired after 1 min without use; sign in again")
        #expect(table.count == 1)
        #expect(table.principal(forCookie: kept, now: 250_000 + 60_000).failure != nil)
    }

    @Test func signOutAndRevocationEndSessions() {
        var table = SessionTable()
        let (first, firstCookie) = table.create(for: ann, address: nil, now: 0)
        let (_, secondCookie) = table.create(for: ann, address: nil, now: 0)
        let (_, bobCookie) = table.create(for: bob, address: nil, now: 0)
        #expect(table.remove(id: first.id)?.id == first.id)
        #expect(table.principal(forCookie: firstCookie, now: 1).failure != nil)
        #expect(table.isOpen(id: first.id, now: 1) == false)
        #expect(table.removeAll(user: "ann").count == 1)
        #expect(table.principal(forCookie: secondCookie, now: 1).failure != nil)
        #expect(table.principal(forCookie: bobCookie, now: 1).success?.name == "bob")
    }

    @Test func aReloadChangesRolesAndEndsRemovedUsers() {
        var table = SessionTable()
        let (annSession, annCookie) = table.create(for: ann, address: nil, now: 0)
        let (bobSession, bobCookie) = table.create(for: bob, address: nil, now: 0)
        let ended = table.revise { principal in
            guard principal.name == "ann" else { return nil }
            var demoted = principal
            demoted.role = .viewer
            demoted.source = .anonymous
            return demoted
        }
        #expect(ended == [bobSession.id])
        #expect(table.principal(forCookie: bobCookie, now: 1).failure != nil)
        let revised = table.principal(forCookie: annCookie, now: 1).success
        #expect(revised?.role == .viewer)
        #expect(revised?.source == .session(user: "ann", session: annSession.id))
    }

    @Test func theTableIsBoundedAndTheLeastRecentlyUsedGoes() {
        var table = SessionTable(maxSessions: 3)
        let cookies = (0..<3).map { table.create(for: ann, address: nil, now: Int64($0)).cookie }
        // The first is used last: the second is now the least recently used.
        _ = table.principal(forCookie: cookies[0], now: 10)
        _ = table.create(for: bob, address: nil, now: 11)
        #expect(table.count == 3)
        #expect(table.principal(forCookie: cookies[1], now: 12).failure != nil)
        #expect(table.principal(forCookie: cookies[0], now: 12).success != nil)
        #expect(table.principal(forCookie: cookies[2], now: 12).success != nil)
    }

    @Test func theAdminsListShowsOpenSessionsNewestUseFirst() {
        var table = SessionTable(idleTimeout: .seconds(10))
        let (old, _) = table.create(for: ann, address: "a", now: 0)
        let (recent, _) = table.create(for: bob, address: "b", now: 5_000)
        #expect(table.list(now: 6_000).map(\.id) == [recent.id, old.id])
        #expect(table.list(now: 11_000).map(\.id) == [recent.id])
        #expect(table.list(now: 6_000).first?.expiresAt == 15_000)
    }

    @Test func twoTablesNeverMakeTheSameCookie() {
        var first = SessionTable()
        var second = SessionTable()
        let a = first.create(for: ann, address: nil, now: 0).cookie
        let b = second.create(for: ann, address: nil, now: 0).cookie
        #expect(a != b)
        // A cookie of one process's table means nothing to another's (a restart ends sessions).
        #expect(second.principal(forCookie: a, now: 1).failure != nil)
    }
}

extension Result {
    var success: Success? { if case .success(let value) = self { return value } else { return nil } }
    var failure: Failure? { if case .failure(let error) = self { return error } else { return nil } }
}
