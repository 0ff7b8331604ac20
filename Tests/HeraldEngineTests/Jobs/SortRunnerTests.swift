import Dispatch
import Foundation
@testable import HeraldEngine
import Synchronization
import HeraldTestSupport
import XCTest

final class SortRunnerTests: XCTestCase {
    private func dataFile(_ fixture: DispatcherFixture, _ count: Int) -> URL {
        fixture.data.appendingPathComponent("numbers-\(count).bin")
    }

    /// The payload of a numbers file, decoded independently of `NumbersFile`.
    private func payload(_ url: URL) throws -> [UInt32] {
        let bytes = [UInt8](try Data(contentsOf: url))
        XCTAssertEqual(Array(bytes[0..<8]), Array("HRLDNUM1".utf8))
        return stride(from: 24, to: bytes.count, by: 4).map { offset in
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
        }
    }

    func testDataIsCreatedOnceThenReused() throws {
        let fixture = makeFixture(runnerConfiguration())
        let first = try fixture.run(.sort, ["count": 1000])
        XCTAssertEqual(first.state, .succeeded, first.error ?? "")
        XCTAssertEqual(first.summary?["created"], true)
        XCTAssertEqual(first.summary?["count"], 1000)
        let bytes = try Data(contentsOf: dataFile(fixture, 1000))
        XCTAssertEqual(bytes.count, 24 + 4 * 1000)
        let numbers = try payload(dataFile(fixture, 1000))
        XCTAssertTrue(numbers.allSatisfy { $0 < 1_000_000_000 })
        XCTAssertEqual(first.summary?["min"], .int(Int64(numbers.min()!)))
        XCTAssertEqual(first.summary?["max"], .int(Int64(numbers.max()!)))

        let second = try fixture.run(.sort, ["count": 1000])
        XCTAssertEqual(second.summary?["created"], false)
        var expected = first.summary!
        expected["created"] = false
        XCTAssertEqual(second.summary, expected)
        XCTAssertEqual(try Data(contentsOf: dataFile(fixture, 1000)), bytes, "the data file was rewritten")
    }

    func testCorruptedAndTruncatedFilesAreRegenerated() throws {
        let fixture = makeFixture(runnerConfiguration())
        _ = try fixture.run(.sort, ["count": 500])
        let url = dataFile(fixture, 500)
        let damages: [(String, (inout Data) -> Void)] = [
            ("a flipped payload byte", { $0[100] ^= 0x01 }),
            ("a flipped magic byte", { $0[3] ^= 0x20 }),
            ("a wrong count", { $0[8] = 7 }),
            ("a truncated payload", { $0 = $0.prefix(24 + 2 * 500) }),
            ("a truncated header", { $0 = $0.prefix(10) }),
            ("an extra byte", { $0.append(0) }),
        ]
        for (damage, apply) in damages {
            var bytes = try Data(contentsOf: url)
            apply(&bytes)
            try bytes.write(to: url)
            let repaired = try fixture.run(.sort, ["count": 500])
            XCTAssertEqual(repaired.state, .succeeded, "\(damage): \(repaired.error ?? "")")
            XCTAssertEqual(repaired.summary?["created"], true, damage)
            XCTAssertEqual(try payload(url).count, 500, damage)
            let reused = try fixture.run(.sort, ["count": 500])
            XCTAssertEqual(reused.summary?["created"], false, "\(damage): the new file is not accepted")
        }
    }

    func testPagesAreAscendingContiguousAndMatchTheData() throws {
        let fixture = makeFixture(runnerConfiguration())
        let job = try fixture.run(.sort, ["count": 2500])
        var values: [Int64] = []
        for offset in stride(from: 0, to: 2500, by: 1000) {
            let page = try fixture.dispatcher.page(job: job.id.rawValue, offset: offset, limit: 1000).get()
            XCTAssertEqual(page.offset, offset)
            XCTAssertEqual(page.total, 2500)
            values += page.values.map { $0.intValue! }
        }
        XCTAssertEqual(values, try payload(dataFile(fixture, 2500)).sorted().map(Int64.init))
        XCTAssertEqual(values.first, job.summary?["min"]?.intValue)
        XCTAssertEqual(values.last, job.summary?["max"]?.intValue)
        XCTAssertEqual(try payload(fixture.data.appendingPathComponent("sorted-2500.bin")).map(Int64.init), values)
        for offset in [2500, 10_000] {
            let past = try fixture.dispatcher.page(job: job.id.rawValue, offset: offset, limit: 10).get()
            XCTAssertEqual(past, ResultPage(offset: offset, total: 2500, values: []))
        }
        let tail = try fixture.dispatcher.page(job: job.id.rawValue, offset: 2495, limit: 100).get()
        XCTAssertEqual(tail.values.map { $0.intValue! }, Array(values[2495...]))
    }

    func testProgressIsOneMonotonicBarAcrossPhases() throws {
        let fixture = makeFixture(runnerConfiguration())
        let job = try fixture.run(.sort, ["count": 300_000])
        let progress = fixture.recorder.progress(of: job.id)
        XCTAssertEqual(progress.last?.completed, 1_200_000)
        XCTAssertTrue(progress.allSatisfy { $0.total == 1_200_000 })
        XCTAssertEqual(progress.map(\.completed), progress.map(\.completed).sorted())
        let phases: Set<String?> = ["loading", "generating", "writing", "sorting", "saving"]
        XCTAssertTrue(progress.allSatisfy { phases.contains($0.message) }, "\(progress.map(\.message))")
    }

    /// Holds the job at one phase (the write's temporary file already exists) until the test cancels.
    private final class PhaseStop: Sendable {
        let phase: String
        let reached = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        init(_ phase: String) { self.phase = phase }
        func hook(_ context: JobContext, _ phase: String) {
            guard phase == self.phase else { return }
            reached.signal()
            release.wait()
        }
    }

    func testACancelledWriteLeavesNoFileBehind() throws {
        for (phase, name) in [("writing", "numbers-1000.bin"), ("saving", "sorted-1000.bin")] {
            let stop = PhaseStop(phase)
            let fixture = makeFixture(runnerConfiguration(), runners: [SortRunner(phaseHook: stop.hook)])
            let job = try fixture.start(.sort, ["count": 1000]).get()
            XCTAssertEqual(stop.reached.wait(timeout: .now() + 20), .success, phase)
            let temporary = { FileManager.default.subpaths(atPath: fixture.data.path)?.filter { $0.contains(".tmp-") } ?? [] }
            XCTAssertEqual(temporary().count, 1, "\(phase): the write has not begun")
            XCTAssertEqual(fixture.dispatcher.page(job: job.id.rawValue, offset: 0, limit: 10).failureCode, .notFound, phase)
            _ = try fixture.dispatcher.cancel(job.id.rawValue).get()
            stop.release.signal()
            XCTAssertEqual(fixture.recorder.waitForTerminal(job.id)?.state, .cancelled, phase)
            XCTAssertEqual(temporary(), [], phase)
            XCTAssertFalse(FileManager.default.fileExists(atPath: fixture.data.appendingPathComponent(name).path), phase)
            let refused = fixture.dispatcher.page(job: job.id.rawValue, offset: 0, limit: 10)
            XCTAssertEqual(refused.failureCode, .notFound, phase)
        }
    }

    func testCountIsValidated() {
        let fixture = makeFixture(runnerConfiguration(), maxSortCount: 5000)
        for count: JSONValue in [0, -5, 5001, "ten", 1.5, true, [1]] {
            let error = fixture.refusal(.sort, ["count": count])
            XCTAssertEqual(error?.code, .badRequest, "\(count)")
            XCTAssertTrue(error?.message.hasPrefix("count: ") == true, "\(count): \(String(describing: error))")
        }
        XCTAssertEqual(fixture.refusal(.sort, ["count": 10, "seed": 1])?.code, .badRequest)
        let standard = makeFixture(runnerConfiguration())
        let accepted = try? standard.start(.sort, [:]).get()
        XCTAssertEqual(accepted?.params, ["count": 10_000])
        XCTAssertEqual((try? standard.start(.sort, ["count": 5000.0]).get())?.params, ["count": 5000])
    }

    /// A phase's share of the bar is span × done / whole. For a count of two billion the product
    /// passes Int64 (the sort phase: 2e9 × 1e10), so it is worked out without overflowing, and a
    /// `done` past `whole` stays inside the phase.
    func testPhaseBarWithCountsWhoseProductPassesInt64() throws {
        let context = makeStandaloneContext(.sort, searchRoot: FileManager.default.temporaryDirectory)
        let count = 2_000_000_000
        var bar = PhaseBar(context, unit: count, slices: 4, hook: nil)
        bar.begin("sorting", start: 2)
        try bar.advance(RadixSort.passes * count - 1, of: RadixSort.passes * count)
        XCTAssertEqual(bar.completed, 3 * Int64(count) - 1)
        XCTAssertEqual(context.progress.sample(), JobProgress(completed: 3 * Int64(count) - 1, total: 4 * Int64(count), message: "sorting"))
        try bar.advance(RadixSort.passes * count + 7, of: RadixSort.passes * count)
        XCTAssertEqual(bar.completed, 3 * Int64(count))
    }
}

extension Result where Failure == EngineError {
    fileprivate var failureCode: ErrorCode? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
