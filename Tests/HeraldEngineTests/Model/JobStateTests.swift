import HeraldEngine
import HeraldTestSupport
import XCTest

final class JobStateTests: XCTestCase {
    /// The lifecycle, written out independently of the implementation.
    private static let allowed: Set<[JobState]> = [
        [.queued, .waiting], [.queued, .running], [.queued, .cancelled], [.queued, .interrupted],
        [.waiting, .queued], [.waiting, .cancelled], [.waiting, .interrupted],
        [.running, .succeeded], [.running, .failed], [.running, .cancelled], [.running, .interrupted], [.running, .queued],
    ]

    func testEveryPairMatchesTheTable() {
        XCTAssertEqual(JobState.allCases.count, 7)
        for from in JobState.allCases {
            for to in JobState.allCases {
                let expected = Self.allowed.contains([from, to])
                XCTAssertEqual(from.canMove(to: to), expected, "\(from) -> \(to)")
                do {
                    let next = try from.apply(to)
                    XCTAssertTrue(expected, "\(from) -> \(to) was accepted")
                    XCTAssertEqual(next, to)
                } catch {
                    XCTAssertFalse(expected, "\(from) -> \(to) was refused")
                    XCTAssertEqual(error.from, from)
                    XCTAssertEqual(error.to, to)
                }
            }
        }
    }

    func testTerminalStates() {
        let terminal = JobState.allCases.filter(\.isTerminal)
        XCTAssertEqual(Set(terminal), [.succeeded, .failed, .cancelled, .interrupted])
        for state in terminal {
            for next in JobState.allCases {
                XCTAssertFalse(state.canMove(to: next), "a \(state) job must stay \(state), not become \(next)")
            }
        }
        for state in JobState.allCases where !state.isTerminal {
            XCTAssertTrue(state.canMove(to: .interrupted), "\(state) must be interruptible")
        }
    }

    func testNoStateMovesToItself() {
        for state in JobState.allCases { XCTAssertFalse(state.canMove(to: state), "\(state)") }
    }

    func testRefusedMoveLeavesTheRecordUntouched() throws {
        var record = JobRecord(id: JobID("j-1"), kind: .sort, params: [:], createdAt: 1)
        try record.move(to: .running)
        try record.move(to: .succeeded)
        XCTAssertEqual(record.state, .succeeded)
        let before = record
        XCTAssertThrowsError(try record.move(to: .running)) { error in
            let refusal = error as? JobState.InvalidTransition
            XCTAssertEqual(refusal?.from, .succeeded)
            XCTAssertEqual(refusal?.to, .running)
            XCTAssertEqual("\(error)", "a succeeded job cannot become running")
        }
        XCTAssertEqual(record, before)
    }

    func testRawValuesAreTheWireNames() {
        XCTAssertEqual(
            JobState.allCases.map(\.rawValue), ["queued", "waiting", "running", "succeeded", "failed", "cancelled", "interrupted"])
    }
}
