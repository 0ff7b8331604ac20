import HeraldAccess
import HeraldEngine
import Synchronization
import XCTest

@testable import HeraldServer

/// Principals on the stream (docs/security.md): a connection scoped to some jobs reads the shared
/// ring but is sent only their frames; credentials are checked at the handshake, for each command,
/// and again while the connection stays open.
final class ScopedStreamTests: XCTestCase {
    /// Tokens by name, each granting a fixed principal; revocable by replacing the verifier.
    private struct Tokens: CredentialVerifier {
        let principals: [String: Principal]
        func verify(bearer token: String, nowMilliseconds: Int64) -> Result<Principal, AccessRefusal>? {
            principals[token].map { .success($0) }
        }
        func isStillValid(_ principal: Principal, nowMilliseconds: Int64) -> Bool? {
            principals.values.contains(principal)
        }
    }

    private static let shareA = Principal(
        name: "share:a", role: .viewer, scope: AccessScope(jobs: ["j-a"]), expiresAtMilliseconds: 50_000, source: .shareLink(id: "a"))
    private static let builds = Principal(name: "ci", role: .operator, scope: AccessScope(kinds: ["build"]), source: .key(name: "ci"))
    private static let viewer = Principal(name: "vic", role: .viewer, source: .key(name: "vic"))

    /// The wall clock the access control reads, moved by the tests.
    private final class WallTime: Sendable {
        let millis = Atomic<Int64>(10_000)
    }
    private let clock = WallTime()

    private func harness(_ tokens: [String: Principal] = ["share-a": shareA, "ci": builds, "vic": viewer]) -> (HubHarness, AccessControl) {
        var settings = AccessSettings()
        settings.identitiesRequired = true
        let access = AccessControl(
            settings: settings, verifiers: [Tokens(principals: tokens)], clock: { [clock] in clock.millis.load(ordering: .relaxed) })
        return (HubHarness { $0.access = access }, access)
    }

    private func record(_ id: String, _ kind: String, _ state: JobState = .queued) -> JobRecord {
        var record = JobRecord(id: JobID(id), kind: JobKind(kind), params: [:], createdAt: 1)
        if state != .queued { try? record.move(to: state) }
        return record
    }

    private func event(_ seq: Int64, _ event: EngineEvent) -> Delivery { .event(SequencedEvent(seq: seq, ts: 1, event: event)) }

    private func live(_ harness: inout HubHarness, _ id: ConnectionID, token: String?, jobs: [JobRecord]) {
        XCTAssertEqual(harness.hub.handshake(id, Handshake(path: "/ws", authorization: token.map { "Bearer \($0)" })), .accept)
        harness.hub.opened(id, now: 0, into: &harness.actions)
        harness.deliver([
            .answer(.snapshot(generation: 0), .snapshot(Snapshot(epoch: "e1", seq: 2, jobs: jobs, news: NewsFeed(), limits: [:])))
        ])
    }

    func testAHandshakeWithoutCredentialsIsUnauthorizedWhereIdentitiesAreOn() {
        var (harness, _) = harness()
        guard case .unauthorized(let why) = harness.hub.handshake(1, Handshake(path: "/ws")) else { return XCTFail("401") }
        XCTAssertEqual(why, "this server needs you to sign in or present a token")
        guard case .unauthorized = harness.hub.handshake(2, Handshake(path: "/ws", authorization: "Bearer forged")) else {
            return XCTFail("a token no verifier knows is refused too")
        }
    }

    func testAConnectionScopedToOneJobIsSentOnlyThatJob() {
        var (harness, _) = harness()
        let jobs = [record("j-a", "sort"), record("j-b", "sort")]
        live(&harness, 1, token: "share-a", jobs: jobs)
        live(&harness, 2, token: "vic", jobs: jobs)
        let scoped = harness.written(1).messages
        XCTAssertEqual(scoped.first?["jobs"]?.arrayValue?.compactMap { $0["id"]?.stringValue }, ["j-a"])
        XCTAssertEqual(scoped.first?["scope"]?["jobs"], .array(["j-a"]))
        XCTAssertEqual(scoped.first?["news"]?["items"]?.arrayValue?.count ?? 0, 0, "no news for a share link")
        XCTAssertEqual(harness.written(2).messages.first?["jobs"]?.arrayValue?.count, 2)
        harness.deliver([
            event(3, .progress(job: JobID("j-b"), JobProgress())), event(4, .progress(job: JobID("j-a"), JobProgress())),
            event(5, .news(revision: 1, items: [])), event(6, .job(record("j-b", "sort", .running))),
            event(7, .log(job: JobID("j-a"), lines: [], skipped: 0, first: 0)),
        ])
        XCTAssertEqual(harness.written(1).messages.compactMap { $0["seq"]?.intValue }, [4, 7], "the ring's other frames skipped")
        XCTAssertEqual(harness.written(2).messages.compactMap { $0["seq"]?.intValue }, [3, 4, 5, 6, 7])
        harness.deliver([event(8, .progress(job: JobID("j-b"), JobProgress()))])
        var buffer: [UInt8] = []
        XCTAssertEqual(
            harness.hub.writable(1, nowMicros: 0, into: &buffer, actions: &harness.actions), .idle,
            "no frame of its own: nothing to write, not an empty write")
        XCTAssertTrue(buffer.isEmpty)
    }

    func testAConnectionScopedToKindsFollowsJobsOfThoseKinds() {
        var (harness, _) = harness()
        live(&harness, 1, token: "ci", jobs: [record("j-old", "build")])
        _ = harness.written(1)
        harness.deliver([
            event(3, .job(record("j-new", "build"))), event(4, .job(record("j-dep", "deploy"))),
            event(5, .progress(job: JobID("j-dep"), JobProgress())), event(6, .progress(job: JobID("j-new"), JobProgress())),
            event(7, .progress(job: JobID("j-old"), JobProgress())),
        ])
        XCTAssertEqual(
            harness.written(1).messages.compactMap { $0["seq"]?.intValue }, [3, 6, 7],
            "kinds learnt from the snapshot and from job events")
    }

    func testAResumeReplaysOnlyTheScopesEvents() {
        var (harness, _) = harness()
        XCTAssertEqual(
            harness.hub.handshake(1, Handshake(path: "/ws", query: ["epoch": "e1", "since": "2"], authorization: "Bearer share-a")), .accept
        )
        harness.hub.opened(1, now: 0, into: &harness.actions)
        let events = [
            EncodedEvent(SequencedEvent(seq: 3, ts: 1, event: .progress(job: JobID("j-b"), JobProgress()))),
            EncodedEvent(SequencedEvent(seq: 4, ts: 1, event: .progress(job: JobID("j-a"), JobProgress()))),
        ]
        harness.deliver([.answer(.resume(1, since: 2), .resume(.events(events)))])
        XCTAssertEqual(harness.written(1).messages.compactMap { $0["seq"]?.intValue }, [4])
    }

    func testCommandsAreCheckedAgainstRoleAndScope() {
        var (harness, _) = harness()
        live(&harness, 1, token: "share-a", jobs: [record("j-a", "sort"), record("j-b", "sort")])
        _ = harness.written(1)
        _ = harness.take()
        harness.send(1, #"{"type":"start","kind":"sort","requestId":"s"}"#)
        harness.send(1, #"{"type":"page","job":"j-b","requestId":"pb"}"#)
        harness.send(1, #"{"type":"page","job":"j-a","requestId":"pa"}"#)
        harness.send(1, #"{"type":"cancel","job":"j-a","requestId":"c"}"#)
        let asked = harness.take().compactMap { if case .ask(let request, _) = $0 { return request } else { return nil } }
        XCTAssertEqual(
            asked, [.page(job: "j-a", offset: 0, limit: CommandDecoder.defaultPageLimit)], "only the page in scope reaches the engine")
        let codes = harness.written(1).messages.compactMap { $0["code"]?.stringValue }
        XCTAssertEqual(codes, ["forbidden", "not_found", "forbidden"])
    }

    func testAnOperatorsStartNamesItAndStaysWithinItsKinds() {
        var (harness, _) = harness()
        live(&harness, 1, token: "ci", jobs: [])
        _ = harness.take()
        harness.send(1, #"{"type":"start","kind":"deploy"}"#)
        harness.send(1, #"{"type":"start","kind":"build"}"#)
        let starts = harness.take().compactMap { if case .ask(.start(let start), _) = $0 { return start } else { return nil } }
        XCTAssertEqual(starts.map(\.kind), ["build"])
        XCTAssertEqual(starts.first?.startedBy, "ci")
        XCTAssertEqual(harness.written(1).messages.last?["message"], "ci (operator) may not start jobs of kind deploy")
    }

    func testOpenConnectionsAreClosedWhenTheirCredentialExpiresOrIsRevoked() {
        var (harness, access) = harness()
        live(&harness, 1, token: "share-a", jobs: [])
        live(&harness, 2, token: "vic", jobs: [])
        live(&harness, 3, token: "ci", jobs: [])
        for id: ConnectionID in [1, 2, 3] { _ = harness.written(id) }
        harness.hub.sweepKeepalive(now: 1, into: &harness.actions)
        XCTAssertEqual(harness.written(1).end, .idle, "not yet expired")
        clock.millis.store(50_000, ordering: .relaxed)
        harness.hub.sweepKeepalive(now: 2, into: &harness.actions)
        XCTAssertEqual(harness.written(1).end, .close(code: 4001, reason: "credentials expired"))
        access.replaceVerifiers([Tokens(principals: ["ci": Self.builds])])
        harness.hub.sweepKeepalive(now: 3, into: &harness.actions)
        XCTAssertEqual(harness.written(2).end, .close(code: 4003, reason: "credentials revoked"))
        XCTAssertEqual(harness.written(3).end, .idle, "a credential still there keeps its connection")
        XCTAssertEqual(harness.hub.metrics.credentialCloses, 2)
    }

    func testAWorkerKeyPresentedInHelloIsFollowedLikeAnyOther() {
        let worker = Principal(name: "gpu-1", role: .worker, source: .key(name: "gpu-1"))
        var (harness, access) = harness(["w": worker, "vic": Self.viewer])
        live(&harness, 1, token: "vic", jobs: [])
        _ = harness.written(1)
        harness.send(1, #"{"type":"hello","role":"worker","name":"gpu-1","kinds":["encode"],"slots":1,"version":1,"token":"w"}"#)
        XCTAssertTrue(harness.take().contains { if case .attachWorker(1, _) = $0 { return true } else { return false } })
        access.replaceVerifiers([Tokens(principals: ["vic": Self.viewer])])
        harness.hub.sweepKeepalive(now: 1, into: &harness.actions)
        XCTAssertEqual(harness.written(1).end, .close(code: 4003, reason: "credentials revoked"), "its key revoked, the worker goes")
    }
}
