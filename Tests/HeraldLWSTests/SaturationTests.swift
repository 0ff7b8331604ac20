import Foundation
import HeraldBench
import HeraldEngine
import HeraldServer
import HeraldTestSupport
import XCTest

/// Operators are always answered: with the service thread saturated by fan-out (a thousand readers,
/// a ticker emitting as fast as delivery allows, and a reader that stalled), `/healthz` and
/// `/metrics` still answer promptly (within a second on an idle machine), because each turn of the
/// service loop does bounded work and replies overtake the queued events.
final class SaturationTests: XCTestCase {
    func testHealthAndMetricsAnswerWhileFanOutSaturatesTheServiceThread() throws {
        let inbox = DeliveryInbox()
        // Paced as `herald serve --bench` paces it: by the inbox, and while most readers keep within a
        // quarter of the ring (a rate-0 producer would otherwise push them all off it, again and again).
        let ticker = TickerRunner(mayEmit: { inbox.undeliveredEvents <= 4096 && !inbox.deliveryIsBehind })
        let server = try LiveServer(
            runners: [ticker], engineConfiguration: EngineConfiguration(progressEventsPerSecond: 1000, enableTicker: true), inbox: inbox)
        defer { server.stop() }
        let readers = try ReaderPool(port: server.port, count: 1_000)
        defer { readers.stop() }
        let stalled = try RawSocket.webSocket(port: server.port, receiveBuffer: 4096)
        defer { _ = stalled }

        let started = try RawSocket.http(
            port: server.port, method: "POST", path: "/api/jobs", body: #"{"kind":"ticker","params":{"rate":0,"duration":600}}"#)
        XCTAssertEqual(started.status, 202, started.body)
        let job = try XCTUnwrap(try JSONParser.parse(started.body)["id"]?.stringValue)
        defer { _ = try? RawSocket.http(port: server.port, method: "POST", path: "/api/jobs/\(job)/cancel") }

        // Saturated: every reader has been receiving the stream for a while.
        let busy = Date(timeIntervalSinceNow: 60)
        while Date() < busy, readers.bytesRead < 1_000 * 20_000 {
            _ = readers.waitForMore(timeout: 1)
        }
        XCTAssertGreaterThanOrEqual(readers.bytesRead, 1_000 * 20_000, "the fan-out got going (\(readers.bytesRead) bytes read)")

        // On an idle two-core machine half the answers come within a second (the figures are printed).
        // The test allows three: a shared machine, as CI's is, can be several times slower for minutes,
        // and that is not the server's doing; a reply queued behind the fan-out's backlog for a thousand
        // readers would take far longer. Under ThreadSanitizer every memory access is instrumented (5
        // to 15 times slower), so a turn of this loop over a thousand sockets is too: there the bound is
        // scaled, or the test would measure the sanitizer instead of the server. The median of the
        // rounds is held to the bound (one round may meet a stall of the whole machine); every round
        // must still be answered, within ten bounds.
        let bound = Self.underThreadSanitizer ? 9.0 : 3.0
        var times: [String: [Double]] = [:]
        defer { print("SaturationTests: answers took \(times) s") }
        for round in 1...5 {
            for path in ["/healthz", "/metrics"] {
                let asked = Date()
                let answer = try RawSocket.http(port: server.port, path: path, timeout: bound * 10)
                let seconds = Date().timeIntervalSince(asked)
                times[path, default: []].append(seconds)
                XCTAssertEqual(answer.status, 200, "\(path) in round \(round): \(answer.body.prefix(200))")
                XCTAssertLessThan(seconds, bound * 10, "\(path) in round \(round) took \(seconds) s")
            }
        }
        for (path, seconds) in times {
            let median = seconds.sorted()[seconds.count / 2]
            XCTAssertLessThan(median, bound, "\(path): half the answers took \(median) s or more: \(seconds)")
        }
        let slowest = times.values.flatMap { $0 }.max() ?? 0
        let before = readers.bytesRead
        XCTAssertTrue(
            readers.waitForMore(timeout: bound * 10),
            "the stream still flows after the checks (\(before) bytes before; slowest answer \(slowest) s)")
    }

    /// Whether this process runs under ThreadSanitizer (its runtime exports `__tsan_init`; nil is RTLD_DEFAULT).
    static let underThreadSanitizer = dlsym(nil, "__tsan_init") != nil
}

/// Many raw WebSocket readers on one thread that reads everything and throws it away, counting bytes.
final class ReaderPool: @unchecked Sendable {
    // @unchecked Sendable: `sockets` is set in init and then only read by the reader thread; the
    // counters are behind `state`'s condition.
    private let sockets: [RawSocket]
    private let state = NSCondition()
    private var total = 0
    private var stopping = false
    private var finished = false

    init(port: Int, count: Int) throws {
        sockets = try (0..<count).map { _ in try RawSocket.webSocket(port: port) }
        let thread = Thread { [self] in readLoop() }
        thread.name = "test.readers"
        thread.start()
    }

    var bytesRead: Int {
        state.lock()
        defer { state.unlock() }
        return total
    }

    /// Waits until more bytes arrive than when it was called; false after `timeout` seconds without.
    func waitForMore(timeout: Double) -> Bool {
        state.lock()
        defer { state.unlock() }
        let start = total
        let deadline = Date(timeIntervalSinceNow: timeout)
        while total == start, !finished {
            if !state.wait(until: deadline) { break }
        }
        return total > start
    }

    func stop() {
        state.lock()
        stopping = true
        while !finished { state.wait() }
        state.unlock()
    }

    private func readLoop() {
        var polls = sockets.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            state.lock()
            let stop = stopping
            state.unlock()
            if stop { break }
            guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
            var read = 0
            for index in polls.indices where polls[index].revents != 0 {
                let count = recv(polls[index].fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count > 0 {
                    read += count
                } else if count == 0 || errno != EAGAIN {
                    polls[index].fd = -1  // closed by the server: poll no more
                }
            }
            state.lock()
            total += read
            state.broadcast()
            state.unlock()
        }
        state.lock()
        finished = true
        state.broadcast()
        state.unlock()
    }
}
