import Foundation
import XCTest

@testable import HeraldLWS

/// The open-files limit `herald serve` asks for, and what it says (no sockets).
final class OpenFilesLimitTests: XCTestCase {
    func testTheSoftLimitRisesToTheConnectionsAndTheReserveWithinTheHardLimit() {
        XCTAssertEqual(OpenFilesLimit.wanted(soft: 1024, hard: 524_288, maxConnections: 10_000), 10_000 + UInt64(OpenFilesLimit.reserve))
        XCTAssertEqual(OpenFilesLimit.wanted(soft: 1024, hard: 4096, maxConnections: 10_000), 4096, "no higher than the hard limit")
        XCTAssertEqual(OpenFilesLimit.wanted(soft: 65_536, hard: 65_536, maxConnections: 100), 65_536, "never lower")
        XCTAssertEqual(OpenFilesLimit.wanted(soft: 64, hard: .max, maxConnections: 100), 100 + UInt64(OpenFilesLimit.reserve))
    }

    func testWhatItSays() {
        let raised = OpenFilesLimit.outcome(soft: 1024, hard: 524_288, now: 11_024, maxConnections: 10_000)
        XCTAssertEqual(raised, OpenFilesLimit.Outcome(line: "open files: raised the limit from 1024 to 11024", isWarning: false))
        XCTAssertNil(OpenFilesLimit.outcome(soft: 65_536, hard: 65_536, now: 65_536, maxConnections: 10_000).line)
        let short = OpenFilesLimit.outcome(soft: 1024, hard: 4096, now: 4096, maxConnections: 10_000)
        XCTAssertTrue(short.isWarning)
        XCTAssertTrue(short.line?.contains("the hard limit is 4096") == true, short.line ?? "")
        XCTAssertTrue(short.line?.contains("wants 11024") == true, short.line ?? "")
    }

    func testTheProcessLimitReadsBack() {
        let (soft, hard) = OpenFilesLimit.current()
        XCTAssertGreaterThan(soft, 0)
        XCTAssertGreaterThanOrEqual(hard, soft)
    }
}
