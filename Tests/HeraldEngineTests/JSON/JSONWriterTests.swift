import HeraldEngine
import HeraldTestSupport
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
        XCTAssertEqual(JSONWriter.string(.double(3)), "3.0", "a double stays a double when it is parsed back")
        XCTAssertEqual(JSONWriter.string(.double(-0.0)), "-0.0")
        XCTAssertEqual(JSONWriter.string(.double(0.1)), "0.1")
        XCTAssertEqual(JSONWriter.string(.double(1e16)), "1e+16")
        XCTAssertEqual(JSONWriter.string(.double(1e-5)), "1e-05")
        for value in [
            0.1, 1.0 / 3, 2.5e-300, .leastNonzeroMagnitude, 1.7976931348623157e308, -1.7976931348623157e308, 123456.789, 3, -7, 1e15, 1e16,
        ] {
            let encoded = JSONWriter.encode(.double(value))
            let parsed = try? JSONParser.parse(encoded)
            XCTAssertEqual(parsed, .double(value), "\(value) must come back as the same double, not an integer")
            XCTAssertEqual(parsed.map(JSONWriter.encode), encoded, "\(value) must be written the same way again")
        }
    }

    func testEveryFiniteDoubleComesBackAsItself() throws {
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<20_000 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            let parsed = try JSONParser.parse(JSONWriter.encode(.double(value)))
            guard case .double(let back) = parsed, back.bitPattern == value.bitPattern else {
                return XCTFail("\(value) (bits \(value.bitPattern)) came back as \(parsed)")
            }
        }
    }

    func testNumberIsAnIntegerWhenItHasNoFraction() {
        XCTAssertEqual(JSONValue.number(1), .int(1))
        XCTAssertEqual(JSONValue.number(-0.0), .int(0))
        XCTAssertEqual(JSONValue.number(20), .int(20))
        XCTAssertEqual(JSONValue.number(0.25), .double(0.25))
        XCTAssertEqual(JSONValue.number(1e15), .double(1e15), "beyond 1e15 an integer is no longer a readable count")
        XCTAssertEqual(JSONValue.number(.nan), .null)
        XCTAssertEqual(JSONValue.number(-.infinity), .null)
        for value in [0, 1, 0.5, 12.5, 999_999_999_999_999, 1e300, -3] {
            XCTAssertEqual(try JSONParser.parse(JSONWriter.encode(.number(value))).doubleValue, value, "a reader gets \(value) back")
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
