import HeraldEngine
import XCTest

final class JSONWriterTests: XCTestCase {
    func testCompactOutputInInsertionOrder() {
        let value: JSONValue = ["z": 1, "a": [true, false, nil], "m": ["k": "v"], "d": 0.5, "s": "x"]
        XCTAssertEqual(JSONWriter.string(value), #"{"z":1,"a":[true,false,null],"m":{"k":"v"},"d":0.5,"s":"x"}"#)
        XCTAssertEqual(JSONWriter.string([]), "[]")
        XCTAssertEqual(JSONWriter.string(.object(JSONObject())), "{}")
        XCTAssertEqual(JSONWriter.string(.int(.min)), "-9223372036854775808")
    }

    func testRoundTrip() throws {
        let value: JSONValue = [
            "seq": .int(9_007_199_254_740_993),
            "ts": .int(1_796_000_000_000_000),
            "neg": -42,
            "fraction": 0.25,
            "tiny": 1.5e-7,
            "huge": 1.5e300,
            "text": "line\nbreak \"quoted\" back\\slash tab\t nul\u{0} bell\u{7} del\u{7F} é 😀 \u{2028}",
            "nested": ["a": [1, [2, [3, ["deep": .null]]]], "empty": [:], "list": []],
            "flags": [true, false],
        ]
        let encoded = JSONWriter.encode(value)
        XCTAssertEqual(try JSONParser.parse(encoded), value)
    }

    func testControlCharactersAreEscaped() {
        var expected = "\""
        for byte in UInt8(0)..<0x20 {
            switch byte {
            case 0x0A: expected += "\\n"
            case 0x0D: expected += "\\r"
            case 0x09: expected += "\\t"
            default: expected += String(format: "\\u%04x", byte)
            }
        }
        expected += "\\u007f\""
        let text = String(decoding: (UInt8(0)..<0x20).map { $0 } + [0x7F], as: UTF8.self)
        let encoded = JSONWriter.encode(.string(text))
        XCTAssertEqual(String(decoding: encoded, as: UTF8.self), expected)
        XCTAssertFalse(encoded.contains { $0 < 0x20 }, "no raw control byte may reach the wire")
        XCTAssertEqual(try JSONParser.parse(encoded), .string(text))
    }

    func testQuotesAndBackslashesInKeysAndValues() throws {
        var object = JSONObject()
        object["k\"e\\y\n"] = "v\"a\\l"
        let text = JSONWriter.string(.object(object))
        XCTAssertEqual(text, #"{"k\"e\\y\n":"v\"a\\l"}"#)
        XCTAssertEqual(try JSONParser.parse(text), .object(object))
    }

    func testNonASCIIPassesThroughAsUTF8() {
        XCTAssertEqual(JSONWriter.encode("é😀"), Array("\"é😀\"".utf8))
    }

    func testDoubles() {
        XCTAssertEqual(JSONWriter.string(.double(.nan)), "null", "JSON has no NaN")
        XCTAssertEqual(JSONWriter.string(.double(.infinity)), "null")
        XCTAssertEqual(JSONWriter.string(.double(-.infinity)), "null")
        XCTAssertEqual(JSONWriter.string(.double(3)), "3", "an integral double is written without a fraction")
        XCTAssertEqual(JSONWriter.string(.double(-0.0)), "0")
        XCTAssertEqual(JSONWriter.string(.double(0.1)), "0.1")
        for value in [0.1, 1.0 / 3, 2.5e-300, 1.7976931348623157e308, 123456.789, 1e15, 1e16] {
            let parsed = try? JSONParser.parse(JSONWriter.encode(.double(value)))
            XCTAssertEqual(parsed?.doubleValue, value, "\(value) must survive a round trip")
        }
    }

    func testObjectRemovingAKeyDropsItFromTheOutput() {
        var object: JSONObject = ["a": 1, "b": 2, "c": 3]
        object["b"] = nil
        object["a"] = 10
        XCTAssertEqual(object.keys, ["a", "c"])
        XCTAssertEqual(JSONWriter.string(.object(object)), #"{"a":10,"c":3}"#)
    }

    func testWriteAppendsToExistingBuffer() {
        var buffer = Array("prefix ".utf8)
        JSONWriter.write(["k": 1], into: &buffer)
        XCTAssertEqual(String(decoding: buffer, as: UTF8.self), #"prefix {"k":1}"#)
    }
}
