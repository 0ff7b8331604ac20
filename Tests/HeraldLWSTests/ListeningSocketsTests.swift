import Foundation
import XCTest

@testable import HeraldLWS

/// The listening sockets of the service threads: with several, one port, and the kernel spreads
/// connections over the sockets; one alone shares its port with nobody (real sockets on 127.0.0.1,
/// port 0).
final class ListeningSocketsTests: XCTestCase {
    func testSocketsShareOnePortAndEachAcceptsSomeConnections() throws {
        let listeners = try ListeningSockets(host: "127.0.0.1", port: 0, count: 2)
        defer { listeners.closeAll() }
        XCTAssertEqual(listeners.descriptors.count, 2)
        XCTAssertGreaterThan(listeners.port, 0)
        // 64 connections from as many source ports: the chance that the hash sends all of them to
        // one socket is 2⁻⁶³.
        let clients = try (0..<64).map { _ in try RawSocket(port: listeners.port) }
        var accepted = [0, 0]
        var polls = listeners.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while accepted.reduce(0, +) < clients.count {
            XCTAssertGreaterThan(poll(&polls, nfds_t(polls.count), 10_000), 0, "an accept waits at most 10 s")
            for (index, descriptor) in listeners.descriptors.enumerated() {
                while true {
                    let connection = accept(descriptor, nil, nil)
                    guard connection >= 0 else { break }
                    close(connection)
                    accepted[index] += 1
                }
            }
        }
        XCTAssertEqual(accepted.reduce(0, +), 64)
        XCTAssertTrue(accepted.allSatisfy { $0 > 0 }, "both sockets accepted some: \(accepted)")
    }

    func testAPortTakenWithoutSharingIsRefusedClearly() throws {
        guard let plain = PlainListener() else { return XCTFail("a free port") }
        defer { withExtendedLifetime(plain) {} }
        XCTAssertThrowsError(try ListeningSockets(host: "127.0.0.1", port: plain.port, count: 2)) { error in
            XCTAssertTrue("\(error)".contains("Address already in use"), "the kernel's reason: \(error)")
        }
        XCTAssertThrowsError(try ListeningSockets(host: "not-an-address", port: 0, count: 1))
    }

    func testOneSocketDoesNotShareItsPort() throws {
        let one = try ListeningSockets(host: "127.0.0.1", port: 0, count: 1)
        defer { one.closeAll() }
        XCTAssertEqual(one.descriptors.count, 1)
        for count in [1, 2] {
            XCTAssertThrowsError(try ListeningSockets(host: "127.0.0.1", port: one.port, count: count), "a second server on its port") {
                error in
                XCTAssertTrue("\(error)".contains("Address already in use"), "\(error)")
            }
        }
    }
}
