import Foundation
import HeraldTestSupport
import XCTest

/// A throwaway CA and server certificates it signed, made with the `openssl` command in a temporary
/// folder (removed by `remove()`). Each server certificate names one IP address (subjectAltName).
struct TestCertificates {
    let folder: URL
    private let openssl: String
    var caFile: String { folder.appendingPathComponent("ca.pem").path }

    /// Skips the test when `openssl` is not installed (Debian: the `openssl` package).
    init() throws {
        guard let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first(where: FileManager.default.isExecutableFile) else {
            throw XCTSkip("openssl is not installed")
        }
        self.openssl = openssl
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try run(
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Herald test CA", "-keyout", "ca.key", "-out",
            "ca.pem")
    }

    /// A certificate and key for a server at `ip`, signed by this CA: (certificate path, key path).
    func server(ip: String) throws -> (certificate: String, key: String) {
        let name = "server-\(ip)"
        try "subjectAltName=IP:\(ip)\n".write(to: folder.appendingPathComponent("\(name).ext"), atomically: true, encoding: .utf8)
        try run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=\(ip)", "-keyout", "\(name).key", "-out", "\(name).csr")
        try run(
            "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
            "-extfile", "\(name).ext", "-out", "\(name).pem")
        return (folder.appendingPathComponent("\(name).pem").path, folder.appendingPathComponent("\(name).key").path)
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func run(_ arguments: String...) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failed(description: "openssl \(arguments.joined(separator: " ")) failed: \(String(decoding: output, as: UTF8.self))")
        }
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }
}
