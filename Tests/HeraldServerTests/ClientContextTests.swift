import Foundation
import HeraldServer
import XCTest

/// `ClientContext`'s own life: creation that fails, and a context nobody shuts down.
final class ClientContextTests: XCTestCase {
    /// With no file descriptor left, lws cannot open /dev/urandom, so `lws_create_context` fails.
    /// `init` must throw and free what it allocated once (twice aborts the process: a double free).
    func testCreationFailureThrowsAndFreesOnce() throws {
        var limit = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit), 0)
        defer { XCTAssertEqual(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit), 0, "limit restored") }
        // The lowest free descriptor number: with the soft limit there, every open() fails with EMFILE.
        let lowestFree = dup(0)
        XCTAssertGreaterThanOrEqual(lowestFree, 0)
        close(lowestFree)
        var exhausted = limit
        exhausted.rlim_cur = rlim_t(lowestFree)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &exhausted), 0)

        XCTAssertThrowsError(try ClientContext()) { error in
            XCTAssertTrue("\(error)".contains("cannot create"), "\(error)")
        }
    }
}
