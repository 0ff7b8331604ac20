import Foundation
import HeraldEngine
import HeraldTestSupport
import XCTest

@testable import HeraldServer

/// `GET /api/audit` on a single server and on a cluster node (a trail that shares with a mirror):
/// where each answer comes from, and what it says about it. The mirror here is a stand-in; the
/// Redis one is `ClusterAuditTests`' and the black-box test's.
final class AuditRouteTests: XCTestCase {
    /// A shared audit that answers one page, or fails, and remembers the cursors it was asked with.
    final class StandInMirror: AuditMirror, @unchecked Sendable {
        // @unchecked Sendable: `asked` is only touched while `lock` is held; `answer` is immutable.
        private let lock = NSLock()
        private var askedWith: [AuditStreamID?] = []
        let answer: Result<SharedAuditPage, EngineError>

        init(_ answer: Result<SharedAuditPage, EngineError>) { self.answer = answer }

        var asked: [AuditStreamID?] { lock.withLock { askedWith } }

        func appendAudit(_ event: AuditEvent) {}

        func auditPage(limit: Int, before: AuditStreamID?, reply: @escaping @Sendable (Result<SharedAuditPage, EngineError>) -> Void) {
            lock.withLock { askedWith.append(before) }
            reply(answer)
        }
    }

    private let api = HTTPAPI(version: "test")
    private var folder: TemporaryDirectory!
    private var trail: AuditTrail!

    override func setUp() {
        super.setUp()
        folder = TemporaryDirectory()
        trail = AuditTrail(directory: folder.url)
        trail.open()
        for index in 1...3 { trail.append(.usersReloaded(users: index, keys: 0, sessionsEnded: 0, at: Int64(index))) }
        trail.flush()
    }

    override func tearDown() {
        folder.remove()
        super.tearDown()
    }

    private let clusterPage = SharedAuditPage(
        limit: 1,
        read: [("1765000000000-0", AuditStreamEntry.fields(node: "n2", event: .usersReloaded(users: 9, keys: 0, sessionsEnded: 0, at: 9)))])

    /// The route's answer, waited for when it comes later; nil when it is answered at once with no
    /// body to wait for (a route this test does not expect).
    private func answer(_ query: [String: String]) -> (HTTPResponse, later: Bool)? {
        let request = HTTPRequest(method: "GET", path: "/api/audit", query: query)
        switch api.route(request, services: HubServices(audit: trail)) {
        case .respond(let response): return (response, false)
        case .compute(let work): return (work(), false)
        case .later(let work):
            let answered = Locked<HTTPResponse?>(nil)
            work { response in answered.withLock { $0 = response } }
            XCTAssertTrue(poll(timeout: 20) { answered.value != nil }, "the later answer came")
            return answered.value.map { ($0, true) }
        default: return nil
        }
    }

    private func body(_ response: HTTPResponse) throws -> JSONValue { try JSONParser.parse(response.body) }

    func testASingleServerAnswersFromItsFileAsItAlwaysDid() throws {
        let (response, later) = try XCTUnwrap(answer(["limit": "2"]))
        XCTAssertFalse(later)
        let json = try body(response)
        XCTAssertNil(json["source"])
        XCTAssertEqual(json["events"]?.arrayValue?.count, 2)
        XCTAssertNil(json["events"]?.arrayValue?.first?["node"])
        XCTAssertEqual(try XCTUnwrap(answer(["before": "1765000000000-0"])).0.status, 400, "a single server has no stream cursors")
    }

    func testAClusterNodeAnswersFromTheSharedAuditWithItsCursor() throws {
        let mirror = StandInMirror(.success(clusterPage))
        trail.share(with: mirror)
        let (response, later) = try XCTUnwrap(answer(["limit": "1", "before": "1765000000001-3"]))
        XCTAssertTrue(later, "answered off the sign-in queue, when Redis answers")
        let json = try body(response)
        XCTAssertEqual(json["source"]?.stringValue, "cluster")
        XCTAssertEqual(json["events"]?.arrayValue?.first?["node"]?.stringValue, "n2")
        XCTAssertEqual(json["next"]?.stringValue, "1765000000000-0")
        XCTAssertEqual(mirror.asked, [AuditStreamID(text: "1765000000001-3")])
    }

    func testWithoutRedisAClusterNodeAnswersFromItsFileAndSaysSo() throws {
        let mirror = StandInMirror(.failure(EngineError(.unavailable, "this node cannot reach Redis")))
        trail.share(with: mirror)
        let json = try body(XCTUnwrap(answer(["limit": "2"])).0)
        XCTAssertEqual(json["source"]?.stringValue, "local")
        XCTAssertEqual(
            json["events"]?.arrayValue?.compactMap { $0["detail"]?.stringValue.map { String($0.prefix(7)) } }, ["3 user(", "2 user("])
        // Its next page is the file's, and the shared audit is not asked for it.
        let next = try XCTUnwrap(json["next"]?.stringValue)
        let rest = try body(XCTUnwrap(answer(["limit": "2", "before": next])).0)
        XCTAssertEqual(rest["source"]?.stringValue, "local")
        XCTAssertEqual(rest["events"]?.arrayValue?.count, 1)
        XCTAssertEqual(mirror.asked, [nil])
        // The shared audit's next page cannot be made of the file: refused until Redis is back.
        XCTAssertEqual(try XCTUnwrap(answer(["before": "1765000000000-0"])).0.status, 503)
    }

    func testWhatIsNoCursorIsRefusedOnANode() throws {
        trail.share(with: StandInMirror(.success(clusterPage)))
        for text in ["x", "1-2-3", "1.x"] { XCTAssertEqual(try XCTUnwrap(answer(["before": text])).0.status, 400, text) }
    }
}
