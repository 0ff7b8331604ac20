import HeraldEngine
import HeraldServer
import HeraldTestSupport
import XCTest

/// The benchmark ticker waits while `DeliveryInbox.deliveryIsBehind` says the readers are behind.
/// That gauge must clear as soon as they catch up, although nothing more is posted: the producer it
/// holds back is the only thing that would post.
final class BacklogGaugeTests: XCTestCase {
    func testGaugeClearsWhenTheReaderCatchesUpWithNothingMorePosted() throws {
        let inbox = DeliveryInbox()
        // A large ring, so the reader is behind (a quarter of it, 4 MiB, more than the kernel and
        // libwebsockets buffer) long before it could fall off the tail and be resynced.
        let server = try LiveServer(runners: [GateRunner()], configure: { $0.ringBytes = 16 << 20 }, inbox: inbox)
        defer { server.stop() }
        let reader = try RawSocket.webSocket(port: server.port, receiveBuffer: 65536)
        XCTAssertTrue(reader.readBytes(until: #""type":"snapshot""#, timeout: 10), "the reader got its snapshot")
        // The engine ran no job, so its stream is at seq 0: these events follow the snapshot.
        let message = String(repeating: "x", count: 1000)
        var seq: Int64 = 0
        while !inbox.deliveryIsBehind, seq < 12_000 {
            let batch = (1...100).map { offset in
                SequencedEvent(
                    seq: seq + offset, ts: 1,
                    event: .progress(job: JobID("j-gauge"), JobProgress(completed: seq + offset, message: message)))
            }
            seq += 100
            inbox.post(events: batch)
            _ = poll(timeout: 0.05) { inbox.deliveryIsBehind }
        }
        XCTAssertTrue(inbox.deliveryIsBehind, "a reader that does not read falls behind (\(seq) events posted)")

        XCTAssertTrue(reader.readBytes(until: #""seq":\#(seq),"#, timeout: 30), "the reader read every event")
        XCTAssertTrue(
            poll(timeout: 10) { !inbox.deliveryIsBehind }, "the gauge cleared once the reader caught up, with nothing more posted")
    }
}
