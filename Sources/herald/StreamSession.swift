import Foundation
import HeraldEngine
import HeraldLWS
import HeraldServer

/// Follows the server's stream for the command line: connects, keeps a `StreamMirror`, reconnects
/// with capped exponential backoff and resumes from the last seq, until told to stop. A TLS failure
/// (a refused certificate) is not retried: `run` stops and `fatal` says why.
/// Thread: the caller's (it blocks); `interrupted` may be set from a signal handler's queue.
final class StreamSession {
    let url: WebSocketURL
    let token: String?
    /// One libwebsockets context (one service thread) for every connection attempt.
    private let context: ClientContext
    private(set) var mirror = StreamMirror()
    private(set) var client: WebSocketClient?
    /// Why `run` gave up for good, for the command to print as its last line.
    private(set) var fatal: String?
    let interrupted = InterruptFlag()

    /// `caFile`: trust only this PEM file's CAs for a wss:// URL (else the system's). An unreadable CA
    /// file throws.
    init(url: WebSocketURL, token: String? = nil, caFile: String? = nil) throws {
        self.url = url
        self.token = token
        context = try ClientContext(tls: url.isSecure ? caFile.map(ClientTLS.caFile) ?? .systemTrust : nil)
    }

    enum Verdict { case keepGoing, stop }

    /// Runs until `handle` says stop or Ctrl-C. `handle` sees every message (parsed) and its effect;
    /// `tick` runs about ten times a second; `status` hears about connecting and reconnecting.
    /// `reconnect: false` gives up after the first connection ends.
    func run(
        reconnect: Bool = true, status: (String) -> Void, tick: () -> Void = {},
        handle: (JSONValue, StreamMirror.Change) -> Verdict
    ) -> Bool {
        var delay = 0.5
        while !interrupted.isSet {
            var target = url
            if let epoch = mirror.epoch {
                target.path = url.path.split(separator: "?").first.map(String.init)! + "?epoch=\(epoch)&since=\(mirror.seq)"
            }
            do {
                let client = try WebSocketClient(url: target, token: token, context: context)
                try client.connect(timeout: 5)
                self.client = client
                delay = 0.5
                status("live")
                while !interrupted.isSet {
                    tick()
                    guard let event = client.next(timeout: 0.1) else { continue }
                    guard case .message(let text) = event else {
                        if case .closed(let code?, let reason) = event, code == 4001 || code == 4003 {
                            // The server ended the connection for its credentials: the same ones would be refused.
                            fatal =
                                "the server closed the connection (\(code) \(reason)); run again with fresh credentials (--token or $HERALD_TOKEN)"
                            return false
                        }
                        break
                    }
                    guard let value = try? JSONParser.parse(text, maxDepth: 64) else { continue }
                    let change = mirror.apply(value)
                    if case .gap = change {
                        client.close()
                        break
                    }
                    if handle(value, change) == .stop {
                        client.close()
                        return true
                    }
                }
                self.client = nil
            } catch let failure as WebSocketClient.Failure where failure.kind == .unauthorized {
                fatal = "\(failure): give a key or token it accepts with --token (or $HERALD_TOKEN)"
                return false
            } catch let failure as WebSocketClient.Failure where failure.kind == .tls {
                let hint = context.tls == .systemTrust ? "; to trust a private CA or a self-signed certificate: --ca FILE" : ""
                fatal = "\(failure)\(hint)"
                return false
            } catch {
                status("\(error)")
                if !reconnect { return false }
            }
            if !reconnect { return false }
            if interrupted.isSet { break }
            let wait = delay * Double.random(in: 0.8...1.2)
            status(String(format: "reconnecting in %.1f s", wait))
            let deadline = ContinuousClock.now + .milliseconds(Int(wait * 1000))
            while ContinuousClock.now < deadline, !interrupted.isSet { tick(); usleep(100_000) }
            delay = min(delay * 2, 8)
        }
        return false
    }

    /// Sets `interrupted` on SIGINT/SIGTERM instead of dying, so the terminal can be restored.
    func installInterruptHandler() -> [DispatchSourceSignal] { interrupted.setOnSignals() }

    /// The URL argument (http, https, ws or wss); `--ca` only goes with https or wss.
    static func url(from positionals: [String], caFile: String? = nil) throws(Arguments.UsageError) -> WebSocketURL {
        let text = positionals.first ?? "ws://127.0.0.1:8080/ws"
        guard let url = WebSocketURL(text) else {
            throw Arguments.UsageError(
                description:
                    "\(text) is not a server URL (for example http://127.0.0.1:8080, https://herald.example or ws://127.0.0.1:8080/ws)")
        }
        if caFile != nil, !url.isSecure {
            throw Arguments.UsageError(description: "--ca is for https:// or wss:// URLs, and \(text) is neither")
        }
        return url
    }
}
