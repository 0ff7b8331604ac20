import Foundation
import HeraldEngine
import HeraldLWS
import HeraldServer
import HeraldTestSupport
import XCTest

/// The real `herald` binary: SIGTERM with clients attached closes them with 1001 and exits 0.
final class ShutdownTests: XCTestCase {
    /// `herald` is built next to the test bundle.
    static var binary: URL {
        let bundle = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent()
        for candidate in [bundle, bundle.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("herald")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return bundle.appendingPathComponent("herald")
    }

    func testSigtermClosesClientsWith1001AndExitsZero() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-shutdown-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = [
            "serve", "--port", "0", "--data-dir", folder.appendingPathComponent("data").path, "--search-root", folder.path, "--grace", "1",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let firstLine = readLine(from: output.fileHandleForReading)
        let url = try XCTUnwrap(firstLine, "the first line is the dashboard URL")
        XCTAssertTrue(url.hasPrefix("http://127.0.0.1:"), url)
        let port = try XCTUnwrap(Int(url.split(separator: ":").last?.trimmingCharacters(in: CharacterSet(charactersIn: "/")) ?? ""))
        let client = TestClient(try WebSocketClient(url: WebSocketURL(host: "127.0.0.1", port: port, path: "/ws")))
        try client.client.connect()
        client.waitFor("snapshot") { $0.type == "snapshot" }

        kill(process.processIdentifier, SIGTERM)
        XCTAssertEqual(client.waitForClose(timeout: 15), .some(1001))
        let exited = expectation(description: "exited")
        DispatchQueue.global().async {
            process.waitUntilExit()
            exited.fulfill()
        }
        wait(for: [exited], timeout: 20)
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("data/jobs.jsonl").path), "history was written")
    }

    private func readLine(from handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while let chunk = try? handle.read(upToCount: 1), let byte = chunk.first {
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }
}
