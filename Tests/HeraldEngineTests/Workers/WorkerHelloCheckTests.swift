import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// A worker's `hello` against the server's kinds, with no dispatcher.
final class WorkerHelloCheckTests: XCTestCase {
    private let runners: [JobKind: any JobRunner] = {
        let encode = CommandKind(name: JobKind("encode"), title: "Encode", command: nil, params: [("n", ParamSchema(type: .integer))])
        return [JobKind("encode"): CommandRunner(encode), .search: SearchRunner()]
    }()

    private func hello(_ kinds: [String], params: [String: JSONValue]? = nil) -> WorkerHello {
        WorkerHello(name: "w", kinds: kinds, slots: 1, params: params)
    }

    func testAKindOfTheJobsFileWithTheSameParamsInAnyKeyOrderIsTaken() throws {
        XCTAssertNil(WorkerHelloCheck.refusal(of: hello(["encode"]), runners: runners), "params may be left out")
        let declared = try XCTUnwrap(runners[JobKind("encode")] as? CommandRunner).definition.json["params"]
        XCTAssertNil(WorkerHelloCheck.refusal(of: hello(["encode"], params: ["encode": try XCTUnwrap(declared)]), runners: runners))
    }

    func testUnknownBuiltInAndMismatchedKindsAreRefusedSayingWhich() {
        XCTAssertEqual(WorkerHelloCheck.refusal(of: hello(["paint"]), runners: runners)?.code, .unknownKind)
        XCTAssertEqual(WorkerHelloCheck.refusal(of: hello(["search"]), runners: runners)?.code, .kindMismatch)
        let other: JSONValue = ["n": ["type": "string"]]
        let refused = WorkerHelloCheck.refusal(of: hello(["encode"], params: ["encode": other]), runners: runners)
        XCTAssertEqual(refused?.code, .kindMismatch)
        XCTAssertTrue(refused?.message.contains("the worker declares params") == true, refused?.message ?? "")
    }

    func testSameJSONComparesObjectsByKeyAndNumbersByValue() {
        XCTAssertTrue(WorkerHelloCheck.sameJSON(["a": 1, "b": [1, 2.0]], ["b": [1.0, 2], "a": 1.0]))
        XCTAssertFalse(WorkerHelloCheck.sameJSON(["a": 1], ["a": 1, "b": 2]))
        XCTAssertFalse(WorkerHelloCheck.sameJSON([1, 2], [2, 1]), "arrays keep their order")
    }
}
