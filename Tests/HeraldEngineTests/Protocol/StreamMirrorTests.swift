import HeraldEngine
import HeraldTestSupport
import XCTest

/// The client-side copy of the stream used by the command line.
final class StreamMirrorTests: XCTestCase {
    func testSnapshotThenEventsThenGap() throws {
        var mirror = StreamMirror()
        let snapshot = try JSONParser.parse(
            #"{"type":"snapshot","epoch":"e1","seq":4,"jobs":[{"id":"j-a","kind":"sort","state":"running","params":{}}],"news":{"revision":2,"items":[]}}"#
        )
        XCTAssertEqual(mirror.apply(snapshot), .snapshot)
        XCTAssertEqual(mirror.seq, 4)
        XCTAssertEqual(mirror.newsRevision, 2)
        let progress = try JSONParser.parse(#"{"type":"progress","seq":5,"job":"j-a","completed":5,"total":10,"fraction":0.5}"#)
        XCTAssertEqual(mirror.apply(progress), .progress("j-a"))
        XCTAssertEqual(mirror.jobs["j-a"]?["progress"]?["fraction"]?.doubleValue, 0.5)
        XCTAssertEqual(mirror.apply(progress), .none, "a repeated event is ignored")
        let done = try JSONParser.parse(#"{"type":"job","seq":6,"job":{"id":"j-a","kind":"sort","state":"succeeded","params":{}}}"#)
        XCTAssertEqual(mirror.apply(done), .job("j-a"))
        XCTAssertEqual(mirror.jobs["j-a"]?["state"]?.stringValue, "succeeded")
        let skipped = try JSONParser.parse(#"{"type":"news","seq":9,"revision":3,"items":[]}"#)
        XCTAssertEqual(mirror.apply(skipped), .gap(expected: 7, got: 9))
        XCTAssertEqual(mirror.apply(try JSONParser.parse(#"{"type":"pong"}"#)), .none)
    }
}
