import HeraldEngine
import HeraldLWS
import HeraldServer
import HeraldTestSupport
import XCTest

/// A client that stops reading costs bounded memory and never slows the others.
final class SlowClientTests: XCTestCase {
    func testStalledReaderIsResyncedOrClosedWhileAFastOneMissesNothing() throws {
        // Many small events quickly, a small cap, and a reader that never reads.
        let runner = GateRunner(steps: 20_000, free: true)
        let server = try LiveServer(runners: [runner]) {
            $0.ringBytes = 1024 * 1024
            $0.resyncLimit = 1_000
        }
        defer { server.stop() }
        let stalled = try RawSocket.webSocket(port: server.port, receiveBuffer: 4096)
        let fast = try server.client()
        fast.waitFor("snapshot") { $0.type == "snapshot" }
        // 20,000 events of about 500 bytes (more than the stalled socket's kernel buffers take), paced
        // so that a reader on this shared machine can keep up: the fast client must never be resynced.
        fast.send(["type": "start", "kind": "search", "params": ["query": "x", "pad": 400, "pace": 50]])
        fast.waitFor("succeeded", timeout: 60) { $0["job"]?["state"]?.stringValue == "succeeded" }

        let seqs = fast.events.compactMap(\.seq)
        XCTAssertEqual(seqs, Array(1...Int64(seqs.count)), "the fast client got every event, with no gap")
        XCTAssertEqual(fast.events.filter { $0.type == "results" }.count, 20_000)
        let metrics = try server.metrics { LiveServer.sample("herald_resyncs_total", in: $0) ?? 0 > 0 }
        XCTAssertGreaterThan(
            LiveServer.sample("herald_resyncs_total", in: metrics) ?? 0, 0, "the stalled reader's backlog was replaced by a snapshot")

        // When the stalled reader reads again, it reaches a resync snapshot: its backlog was replaced.
        stalled.setReceiveBuffer(1 << 20)
        XCTAssertTrue(stalled.readBytes(until: #""reason":"resync""#, timeout: 60), "a resync snapshot reached the stalled client")
    }

    func testRepeatedResyncsCloseWith4008() throws {
        // An endless stream of large events: it runs until the stalled reader has been closed.
        let runner = GateRunner(steps: 10_000_000, free: true)
        let server = try LiveServer(runners: [runner]) {
            $0.ringBytes = 64 * 1024
            $0.resyncLimit = 3
            $0.resyncWindowSeconds = 60
        }
        defer { server.stop() }
        let stalled = try RawSocket.webSocket(port: server.port, receiveBuffer: 4096)
        let started = try RawSocket.http(
            port: server.port, method: "POST", path: "/api/jobs", body: #"{"kind":"search","params":{"query":"x","pad":4000,"pace":200}}"#)
        let id = try XCTUnwrap(try JSONParser.parse(started.body)["id"]?.stringValue)
        let closes = try server.metrics(timeout: 60) { $0.contains("herald_slow_client_closes_total 1") }
        _ = try RawSocket.http(port: server.port, method: "POST", path: "/api/jobs/\(id)/cancel")
        XCTAssertTrue(closes.contains("herald_slow_client_closes_total 1"), closes)
        XCTAssertTrue(closes.contains("herald_resyncs_total 2"), "two resyncs, and the third time it is closed")
        // The close frame (0x88) carries 4008 = 0x0FA8.
        let bytes = stalled.readAll(timeout: 2)
        let closeFrame = bytes.indices.dropLast(3).first { bytes[$0] == 0x88 && bytes[$0 + 2] == 0x0F && bytes[$0 + 3] == 0xA8 }
        XCTAssertNotNil(closeFrame, "close 4008 was sent")
    }

    /// A peer that hangs up (a FIN) while the server still holds bytes it could not send: the
    /// server must go on serving. libwebsockets 4.1, holding the unsent tail of a write itself,
    /// answers that end-of-stream by waiting to flush the tail, and its service loop then reads the
    /// same end-of-stream again forever without polling (measured: 100 % of a core, no connection
    /// served). Herald holds no bytes in lws here (the ring moved past the reader, and its resync
    /// waits for the socket), so lws closes the connection when it reads the end of stream; a peer
    /// that hangs up while part of a write waits is `testAPeerThatHangsUpWhileItIsNotReadIsDroppedAtTheNextSweep`'s.
    func testAPeerThatHangsUpWhileBytesAreQueuedForItDoesNotStopTheServer() throws {
        let runner = GateRunner(steps: 10_000_000, free: true)
        let server = try LiveServer(runners: [runner]) {
            $0.ringBytes = 64 * 1024
            $0.resyncLimit = 1_000
        }
        let stalled = try RawSocket.webSocket(port: server.port, receiveBuffer: 4096)
        try stalled.shrinkServerSendBuffer()
        let id = try RawSocket.startJob(port: server.port, #"{"kind":"search","params":{"query":"x","pad":4000,"pace":200}}"#)
        // The ring moves past the stalled reader.
        let metrics = try server.metrics(timeout: 60) { LiveServer.sample("herald_resyncs_total", in: $0) ?? 0 > 0 }
        XCTAssertGreaterThan(LiveServer.sample("herald_resyncs_total", in: metrics) ?? 0, 0, "the stalled reader fell behind")
        stalled.shutdownWrite()

        // The server still answers, and the half-closed connection is gone.
        var connections: Int64?
        let closedBy = Date(timeIntervalSinceNow: 20)
        while Date() < closedBy, connections != 0 {
            let health = try RawSocket.http(port: server.port, path: "/healthz")
            guard health.status == 200 else { break }
            connections = try JSONParser.parse(health.body)["connections"]?.intValue
        }
        guard connections == 0 else {
            // Stopping a server whose service thread spins would hang the test run: leave it.
            XCTFail("the server stopped answering, or kept the half-closed connection (connections: \(String(describing: connections)))")
            return
        }
        _ = try RawSocket.http(port: server.port, method: "POST", path: "/api/jobs/\(id)/cancel")
        server.stop()
    }
}

extension SlowClientTests {
    /// A client that pings while the server still has part of a frame for it (its socket full)
    /// gets the pong between whole frames. libwebsockets writes the pong itself, in its writable
    /// handling, before Herald's next write; when Herald kept the rest of a cut frame itself, the
    /// pong landed inside that frame and the client read a corrupt stream (a Python client with
    /// its default keepalive pings does this to any stream it reads more slowly than it comes).
    func testAPingWhileTheServerHoldsPartOfAFrameIsAnsweredBetweenFrames() throws {
        let runner = GateRunner(steps: 10_000_000, free: true)
        let server = try LiveServer(runners: [runner]) { $0.resyncLimit = 1_000 }
        defer { server.stop() }
        let client = try RawSocket.webSocket(port: server.port, receiveBuffer: 4096)
        let accepted = try client.shrinkServerSendBuffer()
        let id = try RawSocket.startJob(port: server.port, #"{"kind":"search","params":{"query":"x","pad":300,"pace":500}}"#)

        var received: [UInt8] = []
        var pingsSent: [String] = []
        for round in 1...8 {
            // The client stops reading until both ends' buffers hold bytes: the server's writes are
            // being cut short. Then it pings, and reads on for a while.
            let deadline = Date(timeIntervalSinceNow: 20)
            while Date() < deadline,
                RawSocket.queuedBytes(client.descriptor, unread: true) < 2048 || RawSocket.queuedBytes(accepted, unread: false) < 2048
            {
                usleep(2_000)
            }
            let payload = "round \(round)"
            client.send(RawSocket.maskedPing(Array(payload.utf8)))
            pingsSent.append(payload)
            received += client.read(for: 0.3)
        }
        _ = try RawSocket.http(port: server.port, method: "POST", path: "/api/jobs/\(id)/cancel")

        // Every frame whole: text frames are JSON events, the rest pings, pongs and nothing else.
        let frames = RawSocket.frames(received)
        let pongs = frames.filter { $0.opcode == 0xA }.map { String(decoding: $0.payload, as: UTF8.self) }
        let unexpected = frames.enumerated().first { _, frame in
            switch frame.opcode {
            case 0x1: return (try? JSONParser.parse(String(decoding: frame.payload, as: UTF8.self))["type"]?.stringValue) == nil
            case 0x9, 0xA: return false
            default: return true
            }
        }
        XCTAssertNil(
            unexpected.map {
                "frame \($0.offset): opcode \($0.element.opcode), \(String(decoding: $0.element.payload.prefix(80), as: UTF8.self))"
            },
            "a frame that is not whole: a pong inside another frame shifts every frame after it")
        XCTAssertGreaterThan(frames.filter { $0.opcode == 0x1 }.count, 100, "the stream went on between the pings")
        // lws drops a ping that comes while it has yet to answer the one before, so not every
        // ping need be answered; those that are, are answered whole and in order.
        XCTAssertFalse(pongs.isEmpty, "pongs came")
        let strays = pongs.filter { !pingsSent.contains($0) }
        XCTAssertTrue(strays.isEmpty, "each pong carries a ping's payload; \(strays.count) do not: \(strays.first?.prefix(80) ?? "")")
        XCTAssertTrue(pongs == pingsSent.filter(pongs.contains), "pongs in the order of the pings")
    }

    /// A client that is always behind (its socket full whenever the server writes) still has what
    /// it sends read: the server pauses reading a connection while part of a write waits for it,
    /// but never for more than about a second, or such a client's commands (and its pongs to the
    /// keepalive) would never be read.
    func testAClientAlwaysBehindStillHasItsCommandsRead() throws {
        var behind = try BehindClient()
        defer { behind.stop() }
        // The ping command goes once the client has read slowly for a while.
        let pong = Array(#"{"type":"pong"}"#.utf8)
        let startedReading = Date()
        var pingSent = false
        var answered = false
        while Date().timeIntervalSince(startedReading) < 20, !answered {
            if !pingSent, Date().timeIntervalSince(startedReading) > 0.2 {
                behind.client.send(RawSocket.maskedTextFrame(Array(#"{"type":"ping"}"#.utf8)))
                pingSent = true
            }
            let count = behind.readSlowly()
            answered = RawSocket.contains(Array(behind.received.suffix(count + pong.count)), pong)
        }
        XCTAssertTrue(answered, "the ping command was read and answered")
    }

    /// A client the server has stopped reading (part of a write waits for it) that hangs up (a FIN)
    /// and reads no more: lws, not reading it, does not see the end of stream, so the keepalive
    /// sweep finds the socket in TCP's CLOSE_WAIT and drops it within a second or two, not after
    /// the keepalive's 30 s of silence.
    func testAPeerThatHangsUpWhileItIsNotReadIsDroppedAtTheNextSweep() throws {
        var behind = try BehindClient()
        defer { behind.stop() }
        let startedReading = Date()
        while Date().timeIntervalSince(startedReading) < 0.5 { behind.readSlowly() }
        behind.client.shutdownWrite()

        var connections: Int64?
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline, connections != 0 {
            connections = try JSONParser.parse(RawSocket.http(port: behind.server.port, path: "/healthz").body)["connections"]?.intValue
            usleep(10_000)
        }
        XCTAssertEqual(connections, 0, "the hung-up connection was dropped")
    }

    /// A client reading a kilobyte at a time with a pause between, from a stream of 4 KB events that
    /// comes faster (the server's end of the socket holds little more than one): writes to it keep
    /// being cut short, and the server keeps pausing its reading. The ring does not overflow during
    /// a test: a resync (which writes nothing until its snapshot is ready) would let the server read
    /// the client again anyway.
    private struct BehindClient {
        let server: LiveServer
        let client: RawSocket
        let job: String
        private(set) var received: [UInt8] = []

        init() throws {
            server = try LiveServer(runners: [GateRunner(steps: 10_000_000, free: true)]) {
                $0.ringBytes = 256 * 1024 * 1024
                $0.resyncLimit = 1_000
            }
            client = try RawSocket.webSocket(port: server.port, receiveBuffer: 4096)
            try client.shrinkServerSendBuffer()
            job = try RawSocket.startJob(port: server.port, #"{"kind":"search","params":{"query":"x","pad":4000,"pace":2000}}"#)
        }

        /// Reads at most a kilobyte, then pauses 5 ms; returns how many bytes it read.
        @discardableResult
        mutating func readSlowly() -> Int {
            let bytes = client.read(atMost: 1024, timeout: 1)
            received += bytes
            usleep(5_000)
            return bytes.count
        }

        func stop() {
            _ = try? RawSocket.http(port: server.port, method: "POST", path: "/api/jobs/\(job)/cancel")
            server.stop()
        }
    }
}

/// Keepalive: a peer that stops answering pings is dropped.
final class KeepaliveTests: XCTestCase {
    func testSilentPeerIsDroppedAfterTheHangupTime() throws {
        let server = try LiveServer(runners: [GateRunner()]) {
            $0.pingAfterSeconds = 1
            $0.hangupAfterSeconds = 3
        }
        defer { server.stop() }
        // A raw socket never answers the server's pings.
        let silent = try RawSocket.webSocket(port: server.port)
        let started = Date()
        let bytes = silent.readAll(timeout: 20)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertTrue(bytes.contains(0x89), "the server pinged the idle peer")
        XCTAssertLessThan(elapsed, 15, "dropped after the hang-up time, not left open")
        let metrics = try server.metrics { $0.contains("herald_silent_peer_closes_total 1") }
        XCTAssertTrue(metrics.contains("herald_silent_peer_closes_total 1"), metrics)
        XCTAssertTrue(metrics.contains("\nherald_connections_open 0\n"), metrics)
    }

    /// A peer that never reads a ping but sends its own pongs (a heartbeat, RFC 6455 5.5.3) is alive.
    func testAPeerThatSendsPongsStaysPastTheHangupTime() throws {
        let server = try LiveServer(runners: [GateRunner()]) {
            $0.pingAfterSeconds = 1
            $0.hangupAfterSeconds = 3
        }
        defer { server.stop() }
        let beating = try RawSocket.webSocket(port: server.port)
        // A masked pong carrying "beat" (libwebsockets passes on only pongs with a payload).
        let maskedPong: [UInt8] = [0x8A, 0x84, 1, 2, 3, 4] + zip(Array("beat".utf8), [1, 2, 3, 4] as [UInt8]).map { $0 ^ $1 }
        let started = Date()
        while Date().timeIntervalSince(started) < 6 {
            beating.send(maskedPong)
            _ = beating.readAll(timeout: 0.5)  // paces the beat; returns early only if the server closed
        }
        let health = try JSONParser.parse(RawSocket.http(port: server.port, path: "/healthz").body)
        XCTAssertEqual(health["connections"]?.intValue, 1, "still open after twice the hang-up time")
        let metricsText = try RawSocket.http(port: server.port, path: "/metrics").body
        XCTAssertTrue(metricsText.contains("herald_silent_peer_closes_total 0"), metricsText)
    }
}
