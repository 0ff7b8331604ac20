import Foundation
import HeraldEngine
import HeraldLWS
import HeraldServer
import HeraldTestSupport
import XCTest
import HeraldSupport

/// A real server on 127.0.0.1, port 0, with its own data folder; stopped by `stop()`.
final class LiveServer {
    let engine: JobDispatcher
    let server: WebSocketServer
    let port: Int
    let folder: URL

    init(
        runners: [any JobRunner], configure: (inout ServerConfiguration) -> Void = { _ in },
        engineConfiguration: EngineConfiguration = EngineConfiguration(progressEventsPerSecond: 1000),
        inbox: DeliveryInbox = DeliveryInbox()
    ) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let environment = JobEnvironment(
            searchRoot: folder, dataDirectory: folder.appendingPathComponent("data"),
            newsSource: NewsSource(probability: 1, seed: 3))
        engine = JobDispatcher(configuration: engineConfiguration, environment: environment, runners: runners)
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.logLevel = .warning
        // Two service threads unless a test asks otherwise, whatever the machine's cores (the default).
        configuration.ioThreads = 2
        configure(&configuration)
        server = WebSocketServer(
            configuration: configuration, engine: engine, logger: Logger(level: configuration.logLevel), version: "test", inbox: inbox)
        port = try server.start()
    }

    var url: WebSocketURL { WebSocketURL(host: "127.0.0.1", port: port, path: "/ws") }

    func client(path: String = "/ws", origin: String? = nil, token: String? = nil, context: ClientContext? = nil) throws -> TestClient {
        let client = try WebSocketClient(
            url: WebSocketURL(host: "127.0.0.1", port: port, path: path), origin: origin, token: token, context: context)
        try client.connect(timeout: 10)
        return TestClient(client)
    }

    /// `/metrics` once `condition` holds, or as it was at `timeout`. With several service threads, a
    /// scrape shows the other threads' counters as of their last sweep (a second): a count kept by
    /// the thread of another connection shows up within about that.
    func metrics(timeout: Double = 15, until condition: (String) -> Bool) throws -> String {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var body = try RawSocket.http(port: port, path: "/metrics").body
        while !condition(body), Date() < deadline {
            usleep(20_000)
            body = try RawSocket.http(port: port, path: "/metrics").body
        }
        return body
    }

    /// The value of the sample named `name` (with its labels, if any) in a `/metrics` text.
    static func sample(_ name: String, in metrics: String) -> Int? {
        metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Int($0.split(separator: " ")[1]) }
    }

    func stop() {
        server.stop()
        engine.shutdown(grace: 0)
        try? FileManager.default.removeItem(at: folder)
    }
}
