import Foundation
import XCTest

@testable import HeraldLWS

/// When a service thread stops accepting after a failed `accept`, and what it logs (no sockets).
final class AcceptPauseTests: XCTestCase {
    func testOnlyRunningOutPausesAndOtherFailuresGoOn() {
        var pause = AcceptPause()
        XCTAssertEqual(pause.failed(errno: EAGAIN, now: 0, limit: 1024), .waitForMore)
        for error in [EINTR, ECONNABORTED, EPROTO, EPERM] {
            XCTAssertEqual(pause.failed(errno: error, now: 0, limit: 1024), .acceptNext, "errno \(error)")
        }
        XCTAssertFalse(pause.isPaused)
        XCTAssertFalse(pause.sweep(), "nothing to watch again")
        for error in [EMFILE, ENFILE, ENOBUFS, ENOMEM] {
            var fresh = AcceptPause()
            guard case .pause(let line?) = fresh.failed(errno: error, now: 0, limit: 1024) else {
                return XCTFail("errno \(error) pauses, with a line")
            }
            XCTAssertTrue(line.contains(String(cString: strerror(error))), line)
            XCTAssertTrue(fresh.isPaused)
        }
    }

    func testTheLineNamesTheLimitAndWhatToRaise() {
        var pause = AcceptPause()
        guard case .pause(let line?) = pause.failed(errno: EMFILE, now: 0, limit: 64) else { return XCTFail("a line") }
        XCTAssertTrue(line.contains("may have 64"), line)
        XCTAssertTrue(line.contains("LimitNOFILE"), line)
    }

    func testASweepWatchesAgainOnce() {
        var pause = AcceptPause()
        _ = pause.failed(errno: EMFILE, now: 0, limit: 64)
        XCTAssertTrue(pause.sweep(), "the socket is watched again at the sweep")
        XCTAssertFalse(pause.isPaused)
        XCTAssertFalse(pause.sweep(), "and only once")
    }

    func testAtMostALineAMinuteWhileItRunsOutAndRecoversOverAndOver() {
        var pause = AcceptPause()
        var lines: [String] = []
        // Out of descriptors at every second for three minutes, and a connection accepted in between.
        for second in 0..<180 {
            if case .pause(let line?) = pause.failed(errno: EMFILE, now: Double(second), limit: 64) { lines.append(line) }
            _ = pause.sweep()
            if let line = pause.accepted() { lines.append(line) }
        }
        let pauses = lines.filter { $0.contains("cannot accept") }
        XCTAssertEqual(pauses.count, 3, "\(lines)")
        XCTAssertTrue(pauses[0].hasPrefix("cannot accept connections"))
        XCTAssertTrue(pauses[1].hasPrefix("still cannot accept connections"), pauses[1])
        XCTAssertTrue(pauses[1].contains("paused 60 times since the last line"), pauses[1])
        XCTAssertEqual(lines.filter { $0 == "accepting connections again" }.count, 3, "once after each logged pause")
    }

    func testAnAcceptWithoutAPauseSaysNothing() {
        var pause = AcceptPause()
        XCTAssertNil(pause.accepted())
        _ = pause.failed(errno: EMFILE, now: 0, limit: 64)
        XCTAssertEqual(pause.accepted(), "accepting connections again")
        XCTAssertNil(pause.accepted(), "said once")
    }
}
