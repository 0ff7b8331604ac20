import Foundation
import HeraldEngine
import XCTest

extension XCTestCase {
    /// A dispatcher on a fresh temporary directory, shut down (running jobs cancelled) after the test.
    func makeDispatcher(
        _ configuration: EngineConfiguration = testConfiguration(), runners: [any JobRunner],
        directory: TemporaryDirectory? = nil, history: HistoryStore? = nil
    ) -> JobDispatcher {
        let directory = directory ?? makeTemporaryDirectory()
        let dispatcher = JobDispatcher(
            configuration: configuration, environment: testEnvironment(directory), runners: runners, history: history)
        addTeardownBlock { dispatcher.shutdown(grace: 0) }
        return dispatcher
    }

    /// Starts a job that must be accepted, and returns its record.
    func startJob(
        _ dispatcher: JobDispatcher, _ kind: JobKind, tag: String = "", after: [JobID] = [], requestId: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> JobRecord {
        let request = StartRequest(
            kind: kind.rawValue, params: ["tag": .string(tag)], after: after.map(\.rawValue), requestId: requestId)
        switch dispatcher.start(request) {
        case .success(let record): return record
        case .failure(let error):
            XCTFail("start \(kind.rawValue) \(tag) refused: \(error)", file: file, line: line)
            throw error
        }
    }
}
