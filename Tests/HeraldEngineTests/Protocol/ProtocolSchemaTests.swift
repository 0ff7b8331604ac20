import Foundation
import XCTest

@testable import HeraldEngine

/// docs/protocol.schema.json names the protocol's version and its closed sets of words as the code
/// does: a version bumped, an error code or a job state added in the code and not in the schema fails
/// here. (The black-box suites check every message they receive against the schema.)
final class ProtocolSchemaTests: XCTestCase {
    private func schema() throws -> JSONValue { try document("protocol.schema.json") }

    private func document(_ name: String) throws -> JSONValue {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../docs/\(name)")
        return try JSONParser.parse(Array(try Data(contentsOf: file.standardizedFileURL)), maxDepth: 64)
    }

    private func strings(_ value: JSONValue?) -> [String] { value?.arrayValue?.compactMap(\.stringValue) ?? [] }

    func testTheSchemaIsOfThisProtocolVersion() throws {
        let schema = try schema()
        let definitions = try XCTUnwrap(schema["$defs"])
        XCTAssertEqual(schema["$id"]?.stringValue, "urn:herald:protocol:\(WireEncoder.protocolVersion)")
        XCTAssertEqual(definitions["snapshot"]?["properties"]?["protocol"]?["const"]?.intValue, WireEncoder.protocolVersion)
        XCTAssertEqual(definitions["hello"]?["properties"]?["version"]?["const"]?.intValue, WorkerHello.protocolVersion)
    }

    func testTheSchemaNamesEveryErrorCodeAndJobState() throws {
        let definitions = try XCTUnwrap(try schema()["$defs"])
        XCTAssertEqual(strings(definitions["errorCode"]?["enum"]), ErrorCode.allCases.map(\.rawValue))
        XCTAssertEqual(strings(definitions["jobState"]?["enum"]), JobState.allCases.map(\.rawValue))
        let reasons = strings(definitions["snapshot"]?["properties"]?["reason"]?["enum"])
        XCTAssertEqual(reasons.compactMap(WireEncoder.SnapshotReason.init(rawValue:)).map(\.rawValue), reasons)
        XCTAssertEqual(reasons.count, 3, "connect, resume, resync")
    }

    func testTheScheduleCommandNamesEveryActionAndItsRepliesCarryTheRESTObject() throws {
        let definitions = try XCTUnwrap(try schema()["$defs"])
        XCTAssertEqual(strings(definitions["scheduleCommand"]?["properties"]?["action"]?["enum"]), ScheduleAction.allCases.map(\.rawValue))
        XCTAssertEqual(
            definitions["scheduleCommand"]?["properties"]?["name"]?["maxLength"]?.intValue, Int64(CommandDecoder.maxScheduleNameBytes))
        // The `schedules` and `schedule` replies carry what GET /api/schedules answers: the OpenAPI
        // document's object, its one reference renamed.
        let rest = try XCTUnwrap(try document("openapi.json")["components"]?["schemas"]?["ScheduleStatus"])
        let renamed = JSONWriter.string(rest).replacingOccurrences(of: "#/components/schemas/JobID", with: "#/$defs/jobId")
        XCTAssertEqual(try JSONParser.parse(Array(renamed.utf8), maxDepth: 64), definitions["scheduleStatus"])
    }
}
