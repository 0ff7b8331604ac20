import HeraldEngine
import HeraldTestSupport
import XCTest

final class JSONParserTests: XCTestCase {
    private func parse(_ text: String, maxDepth: Int = JSONParser.defaultMaxDepth) throws -> JSONValue {
        try JSONParser.parse(text, maxDepth: maxDepth)
    }

    private func assertRefused(_ text: String, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try parse(text), "\(text.debugDescription) was accepted", file: file, line: line) { error in
            let message = (error as? JSONParser.Failure)?.message ?? "\(error)"
            XCTAssertTrue(message.contains(fragment), "\(text.debugDescription): \(message)", file: file, line: line)
        }
    }

    private func assertRefused(bytes: [UInt8], _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try JSONParser.parse(bytes), "\(bytes) was accepted", file: file, line: line) { error in
            let message = (error as? JSONParser.Failure)?.message ?? "\(error)"
            XCTAssertTrue(message.contains(fragment), "\(bytes): \(message)", file: file, line: line)
        }
    }

    // MARK: Valid documents

    func testScalars() throws {
        XCTAssertEqual(try parse("null"), .null)
        XCTAssertEqual(try parse("true"), .bool(true))
        XCTAssertEqual(try parse("false"), .bool(false))
        XCTAssertEqual(try parse("\"hi\""), .string("hi"))
        XCTAssertEqual(try parse(" \t\r\n 42 \n"), .int(42))
    }

    func testObjectKeepsKeyOrderAndNestedValues() throws {
        let value = try parse(#"{"type":"start","kind":"search","params":{"query":"needle","n":[1,2.5,null,false]},"after":[]}"#)
        let object = try XCTUnwrap(value.objectValue)
        XCTAssertEqual(object.keys, ["type", "kind", "params", "after"])
        XCTAssertEqual(value["kind"], .string("search"))
        XCTAssertEqual(value["params"]?["query"], .string("needle"))
        XCTAssertEqual(value["params"]?["n"], .array([.int(1), .double(2.5), .null, .bool(false)]))
        XCTAssertEqual(value["after"], .array([]))
        XCTAssertEqual(try parse("{}"), .object(JSONObject()))
        XCTAssertEqual(try parse("[ ]"), .array([]))
        XCTAssertEqual(try parse(#"{ "a" : [ { } ] }"#), ["a": [.object(JSONObject())]])
    }

    // MARK: Numbers

    func testIntegersStayExactAndOthersAreDoubles() throws {
        XCTAssertEqual(try parse("0"), .int(0))
        XCTAssertEqual(try parse("-0"), .int(0))
        XCTAssertEqual(try parse("-17"), .int(-17))
        XCTAssertEqual(try parse("9007199254740993"), .int(9_007_199_254_740_993), "beyond 2^53 must stay exact")
        XCTAssertEqual(try parse("9223372036854775807"), .int(.max))
        XCTAssertEqual(try parse("-9223372036854775808"), .int(.min))
        XCTAssertEqual(try parse("1.5"), .double(1.5))
        XCTAssertEqual(try parse("10000.0"), .double(10_000))
        XCTAssertEqual(try parse("1e3"), .double(1000))
        XCTAssertEqual(try parse("-2.5E-3"), .double(-0.0025))
        XCTAssertEqual(try parse("1E+2"), .double(100))
        XCTAssertEqual(try parse("10000.0").intValue, 10_000, "JavaScript's 10000.0 is still an integer to intValue")
        XCTAssertNil(try parse("1.5").intValue)
    }

    func testHugeNumbers() throws {
        XCTAssertEqual(try parse("9223372036854775808"), .double(9_223_372_036_854_775_808), "one past Int64 becomes a double")
        XCTAssertEqual(try parse("123456789012345678901234567890"), .double(1.2345678901234568e29))
        XCTAssertEqual(try parse("1e308"), .double(1e308))
        XCTAssertEqual(try parse("1e-400"), .double(0), "underflow is a plain zero")
        assertRefused("1e400", "out of range")
        assertRefused("-1e400", "out of range")
        assertRefused(String(repeating: "9", count: 400), "out of range")
        XCTAssertNil(try parse("1e300").intValue, "a huge double is no integer")
    }

    func testMalformedNumbers() {
        for text in ["-", "01", "1.", ".5", "1e", "1e+", "+1", "0x10", "1.2.3", "--1", "NaN", "Infinity", "-Infinity"] {
            XCTAssertThrowsError(try parse(text), "\(text) was accepted")
        }
    }

    // MARK: Strings

    func testEscapes() throws {
        XCTAssertEqual(try parse(#""a\"b\\c\/d\be\ff\ng\rh\ti""#), .string("a\"b\\c/d\u{8}e\u{C}f\ng\rh\ti"))
        XCTAssertEqual(try parse(#""\u0041\u00e9\u20AC""#), .string("Aé€"))
        XCTAssertEqual(try parse(#""\u0000""#), .string("\u{0}"))
        XCTAssertEqual(try parse("\"é漢字\""), .string("é漢字"), "raw UTF-8 passes through")
        assertRefused(#""\x41""#, "invalid escape")
        assertRefused(#""\u12""#, "invalid \\u escape")
        assertRefused(#""\u12G4""#, "invalid \\u escape")
        assertRefused(#""abc\"#, "unterminated")
        assertRefused(#""abc"#, "unterminated string")
    }

    func testSurrogatePairs() throws {
        XCTAssertEqual(try parse(#""\ud83d\ude00""#), .string("😀"))
        XCTAssertEqual(try parse(#""\uD834\uDD1E x""#), .string("𝄞 x"))
        assertRefused(#""\ud83d""#, "unpaired surrogate")
        assertRefused(#""\ud83d x""#, "unpaired surrogate")
        assertRefused(#""\ud83d\u0041""#, "unpaired surrogate")
        assertRefused(#""\ude00""#, "unpaired surrogate")
        assertRefused(#""\ude00\ud83d""#, "unpaired surrogate")
    }

    func testControlCharactersMustBeEscaped() {
        assertRefused("\"a\nb\"", "control character")
        assertRefused("\"a\tb\"", "control character")
        assertRefused(bytes: [0x22, 0x00, 0x22], "control character")
    }

    func testInvalidUTF8IsRefused() {
        let quote: UInt8 = 0x22
        assertRefused(bytes: [quote, 0xFF, quote], "invalid UTF-8")
        assertRefused(bytes: [quote, 0xC3, quote], "invalid UTF-8")  // truncated two-byte sequence
        assertRefused(bytes: [quote, 0xC0, 0x80, quote], "invalid UTF-8")  // overlong NUL
        assertRefused(bytes: [quote, 0xED, 0xA0, 0x80, quote], "invalid UTF-8")  // a surrogate encoded in UTF-8
        assertRefused(bytes: [quote, 0xF4, 0x90, 0x80, 0x80, quote], "invalid UTF-8")  // beyond U+10FFFF
        assertRefused(bytes: [0xEF, 0xBB, 0xBF] + Array("{}".utf8), "unexpected character")  // a BOM
        XCTAssertEqual(try JSONParser.parse([quote, 0xC3, 0xA9, quote]), .string("é"))
    }

    // MARK: Structure

    func testDuplicateKeysAreRefused() {
        assertRefused(#"{"a":1,"a":2}"#, "duplicate key \"a\"")
        assertRefused(#"{"x":{"a":1,"b":2,"a":1}}"#, "duplicate key")
        assertRefused(#"{"\u0061":1,"a":2}"#, "duplicate key")  // the same key spelled with an escape
        XCTAssertNoThrow(try parse(#"{"a":{"a":1},"b":{"a":2}}"#), "the same key in different objects is fine")
    }

    func testNestingLimit() throws {
        let limit = JSONParser.defaultMaxDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        XCTAssertNoThrow(try parse(deepest))
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        assertRefused(tooDeep, "nesting deeper than \(limit)")
        let deepObjects = String(repeating: #"{"a":"#, count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        assertRefused(deepObjects, "nesting deeper")
        XCTAssertNoThrow(try parse("[[[1]]]", maxDepth: 3))
        XCTAssertThrowsError(try parse("[[[[1]]]]", maxDepth: 3))
        // Far beyond the limit: refused with an error, not a stack overflow.
        assertRefused(String(repeating: "[", count: 1_000_000), "nesting deeper")
    }

    func testTrailingDataIsRefused() {
        assertRefused("{} {}", "after the JSON value")
        assertRefused("1 2", "after the JSON value")
        assertRefused("[1]]", "after the JSON value")
        assertRefused("truex", "after the JSON value")
        assertRefused("null,", "after the JSON value")
    }

    func testOtherMalformedDocuments() {
        for text in [
            "", "   ", "[1,]", "[,1]", "{\"a\"}", "{\"a\":}", "{a:1}", "{'a':1}", "{\"a\":1,}", "[1 2]", "tru", "nul", "True", "[", "{",
            "{\"a\":1",
        ] {
            XCTAssertThrowsError(try parse(text), "\(text.debugDescription) was accepted")
        }
    }

    func testFailureCarriesTheOffset() {
        XCTAssertThrowsError(try parse("[1, x]")) { error in
            let failure = error as? JSONParser.Failure
            XCTAssertEqual(failure?.offset, 4)
            XCTAssertEqual(failure?.description, "unexpected character at byte 4")
        }
    }
}
