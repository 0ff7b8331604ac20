import HeraldEngine
@testable import HeraldServer
import XCTest

/// Connection ids across service threads: unique, and each names the thread that owns it, so an
/// answer addressed to a connection reaches that thread.
final class ConnectionRoutingTests: XCTestCase {
    func testOneThreadKeepsIdsAsTheyWere() {
        let routing = ConnectionRouting(threads: 1)
        XCTAssertEqual((1...5).map { routing.id(serial: $0, thread: 0) }, [1, 2, 3, 4, 5])
        XCTAssertEqual(routing.thread(of: 42), 0)
    }

    func testIdsAreUniqueAndNameTheirThread() {
        let routing = ConnectionRouting(threads: 3)
        var seen = Set<ConnectionID>()
        for thread in 0..<3 {
            for serial in 1...100 {
                let id = routing.id(serial: serial, thread: thread)
                XCTAssertTrue(seen.insert(id).inserted, "id \(id) given twice")
                XCTAssertEqual(routing.thread(of: id), thread)
            }
        }
    }

    func testAnswersGoToTheOwnerAndEventsToNobodyInParticular() {
        let routing = ConnectionRouting(threads: 4)
        let id = routing.id(serial: 9, thread: 2)
        let event = SequencedEvent(seq: 1, ts: 0, event: .news(revision: 1, items: []))
        XCTAssertNil(routing.thread(for: .event(event)))
        XCTAssertNil(routing.thread(for: .answer(.snapshot(generation: 0), .schedules([]))))
        XCTAssertEqual(routing.thread(for: .answer(.resume(id, since: 3), .resume(.events([])))), 2)
        XCTAssertEqual(routing.thread(for: .answer(.command(id, type: "start", requestId: nil), .schedules([]))), 2)
        XCTAssertEqual(routing.thread(for: .file(id, HTTPResponse(status: 404, contentType: "text/plain", body: []))), 2)
    }
}
