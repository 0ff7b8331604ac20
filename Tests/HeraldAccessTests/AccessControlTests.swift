import HeraldAccess
import Synchronization
import Testing

@Suite struct AccessControlTests {
    private func settings(token: String? = nil, workerToken: String? = nil, identities: Bool = false, publicView: Bool = false)
        -> AccessSettings
    {
        var settings = AccessSettings()
        settings.controlToken = token
        settings.workerToken = workerToken
        settings.identitiesRequired = identities
        settings.publicView = publicView
        return settings
    }

    @Test func withNothingConfiguredEveryoneMayDoEverythingAsBefore() throws {
        let access = AccessControl(settings: settings())
        let principal = try access.authenticate(PresentedCredentials()).get()
        #expect(principal == .anonymousAdmin)
        #expect(principal.refusal(of: .start(kind: "k")) == nil)
    }

    @Test func theControlTokenIsComparedWhole() throws {
        let access = AccessControl(settings: settings(token: "s3cret"))
        #expect(try access.authenticate(PresentedCredentials(bearer: "s3cret")).get().source == .controlToken)
        for wrong in ["s3cre", "s3cret!", "S3cret"] {
            #expect(throws: AccessRefusal.self) { try access.authenticate(PresentedCredentials(bearer: wrong)).get() }
        }
        let anonymous = try access.authenticate(PresentedCredentials()).get()
        #expect(anonymous.role == .viewer, "with only a control token, anyone may still watch")
        #expect(anonymous.refusal(of: .start(kind: "k"))?.kind == .unauthorized, "and is told a credential would help")
    }

    @Test func theWorkerTokenMakesAWorkerNotAnOperator() throws {
        let access = AccessControl(settings: settings(token: "control", workerToken: "work"))
        let worker = try access.authenticate(PresentedCredentials(bearer: "work")).get()
        #expect(worker.role == .worker)
        #expect(worker.refusal(of: .start(kind: "k"))?.kind == .forbidden)
        let admin = try access.authenticate(PresentedCredentials(bearer: "control")).get()
        #expect(admin.refusal(of: .work) != nil, "a control token is not a worker token")
    }

    @Test func identitiesTurnAnonymousAccessOffUnlessPublicView() throws {
        let closed = AccessControl(settings: settings(identities: true))
        #expect(closed.authenticate(PresentedCredentials()).failure?.kind == .unauthorized)
        let open = AccessControl(settings: settings(identities: true, publicView: true))
        #expect(try open.authenticate(PresentedCredentials()).get().role == .viewer)
        #expect(open.authenticate(PresentedCredentials(bearer: "nonsense")).failure?.message == "the token is not valid on this server")
    }

    @Test func aTokenOverTheLimitIsRefusedUnread() {
        let access = AccessControl(settings: settings(token: "x"))
        let huge = String(repeating: "a", count: 100 * 1024)
        #expect(access.authenticate(PresentedCredentials(bearer: huge)).failure?.message == "the token is larger than 8 KiB")
    }

    @Test func aTrustedProxyNamesUsersOnlyFromItsAddresses() throws {
        var configured = settings(identities: true)
        configured.trustedProxy = AccessSettings.TrustedProxy(
            header: "X-Forwarded-User", addresses: [try #require(AddressRange("10.0.0.0/8"))])
        let access = AccessControl(settings: configured)
        let viaProxy = try access.authenticate(PresentedCredentials(proxyUser: "ann", peerAddress: "10.1.2.3")).get()
        #expect(viaProxy.name == "ann" && viaProxy.role == .operator && viaProxy.source == .proxy(user: "ann"))
        #expect(access.authenticate(PresentedCredentials(proxyUser: "ann", peerAddress: "192.168.1.5")).failure?.kind == .unauthorized)
    }

    @Test func expiredAndRevokedPrincipalsAreNoLongerValid() {
        let now = Mutex<Int64>(1_000)
        let verifier = ListVerifier(names: ["ci"])
        let access = AccessControl(settings: settings(identities: true), verifiers: [verifier], clock: { now.withLock { $0 } })
        let principal = Principal(name: "ci", role: .operator, expiresAtMilliseconds: 2_000, source: .key(name: "ci"))
        #expect(access.isStillValid(principal))
        now.withLock { $0 = 2_000 }
        #expect(!access.isStillValid(principal), "expired at its expiry")
        let before = access.revision
        access.replaceVerifiers([ListVerifier(names: [])])
        #expect(access.revision > before)
        #expect(!access.isStillValid(Principal(name: "ci", role: .operator, source: .key(name: "ci"))), "its key is gone")
    }

    /// Keys by name: enough to test what AccessControl does with a verifier's answers.
    private struct ListVerifier: CredentialVerifier {
        let names: Set<String>
        func verify(bearer token: String, nowMilliseconds: Int64) -> Result<Principal, AccessRefusal>? {
            names.contains(token) ? .success(Principal(name: token, role: .operator, source: .key(name: token))) : nil
        }
        func isStillValid(_ principal: Principal, nowMilliseconds: Int64) -> Bool? {
            guard case .key(let name) = principal.source else { return nil }
            return names.contains(name)
        }
    }
}
