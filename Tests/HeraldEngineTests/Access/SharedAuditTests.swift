@testable import HeraldEngine
import Foundation
import HeraldAccess
import Testing

/// The pure parts of a cluster's shared audit: the entry id that is its cursor, an entry's fields and
/// JSON, and a page made of what a reverse range read found.
@Suite struct SharedAuditTests {
    private let ann = Principal(name: "ann", role: .operator, source: .key(name: "ann"))

    private func event(_ index: Int) -> AuditEvent {
        .start(by: ann, job: "j-\(index)", kind: "search", address: "10.0.0.\(index)", at: 1_765_000_000_000 + Int64(index))
    }

    private func read(_ id: String, node: String, _ event: AuditEvent) -> (id: String, fields: [[UInt8]]) {
        (id, AuditStreamEntry.fields(node: node, event: event))
    }

    @Test func aStreamIdReadsBackAndOrdersByTimeThenSequence() throws {
        let id = try #require(AuditStreamID(text: "1765000000123-7"))
        #expect(id.milliseconds == 1_765_000_000_123 && id.sequence == 7 && id.text == "1765000000123-7")
        #expect(AuditStreamID(text: "18446744073709551615-0")?.milliseconds == UInt64.max)
        #expect(try #require(AuditStreamID(text: "5-9")) < #require(AuditStreamID(text: "6-0")))
        #expect(try #require(AuditStreamID(text: "6-1")) > #require(AuditStreamID(text: "6-0")))
    }

    @Test(arguments: ["", "-", "12", "12-", "-3", "1.20", "12-3-4", "a-1", "1-b", " 1-2", "18446744073709551616-0", "+", "(12-0"])
    func whatNoStreamCouldNameIsNoId(_ text: String) {
        #expect(AuditStreamID(text: text) == nil)
    }

    @Test func aLocalCursorIsNoStreamIdAndAStreamIdIsNoLocalCursor() {
        #expect(AuditStreamID(text: AuditCursor(segment: 3, offset: 1200).text) == nil)
        #expect(AuditCursor(text: "1765000000123-7") == nil)
    }

    @Test func anEntryKeepsItsNodeAndEventAndShowsTheNodeInItsJSON() throws {
        let made = read("1765000000123-0", node: "n2", event(4))
        #expect(made.fields[0] == Array("n".utf8) && made.fields[1] == Array("n2".utf8) && made.fields[2] == Array("e".utf8))
        // The event's field is what the node's audit.jsonl holds on its line.
        #expect(made.fields[3] == JSONWriter.encode(event(4).json))
        let entry = try #require(AuditStreamEntry(id: made.id, fields: made.fields))
        #expect(entry.node == "n2" && entry.event == event(4) && entry.id.text == "1765000000123-0")
        let json = entry.json
        #expect(json["node"]?.stringValue == "n2")
        #expect(json["job"]?.stringValue == "j-4" && json["event"]?.stringValue == "start" && json["actor"]?.stringValue == "ann")
        var withoutNode = try #require(json.objectValue)
        withoutNode["node"] = nil
        #expect(JSONValue.object(withoutNode) == event(4).json)
    }

    @Test func anEntryThatIsNotOneOfOursReadsAsNothing() {
        let good = AuditStreamEntry.fields(node: "n1", event: event(1))
        #expect(AuditStreamEntry(id: "not-an-id", fields: good) == nil)
        #expect(AuditStreamEntry(id: "1-0", fields: Array(good.prefix(3))) == nil)
        #expect(AuditStreamEntry(id: "1-0", fields: Array(good.prefix(2))) == nil)
        #expect(AuditStreamEntry(id: "1-0", fields: Array(good.suffix(2))) == nil)
        #expect(AuditStreamEntry(id: "1-0", fields: [good[0], [], good[2], good[3]]) == nil)
        #expect(AuditStreamEntry(id: "1-0", fields: [good[0], good[1], good[2], Array("{\"ts\":1}".utf8)]) == nil)
        #expect(AuditStreamEntry(id: "1-0", fields: [good[0], good[1], good[2], Array("{torn".utf8)]) == nil)
        // Fields it does not know are passed over.
        #expect(AuditStreamEntry(id: "1-0", fields: [Array("x".utf8), Array("y".utf8)] + good)?.node == "n1")
    }

    @Test func aFullReadHasANextAndAShortOneDoesNot() throws {
        let reads = [read("30-0", node: "n1", event(3)), read("20-0", node: "n2", event(2)), read("10-0", node: "n1", event(1))]
        let full = SharedAuditPage(limit: 3, read: reads)
        #expect(full.entries.map(\.event.job) == ["j-3", "j-2", "j-1"])
        #expect(full.entries.map(\.node) == ["n1", "n2", "n1"])
        #expect(full.next?.text == "10-0")
        let short = SharedAuditPage(limit: 4, read: reads)
        #expect(short.entries.count == 3 && short.next == nil)
        // A damaged entry is skipped, and the page still goes on after the last id read.
        let damaged = SharedAuditPage(limit: 3, read: [reads[0], reads[1], ("5-0", [Array("e".utf8), Array("{".utf8)])])
        #expect(damaged.entries.map(\.event.job) == ["j-3", "j-2"] && damaged.next?.text == "5-0")
    }

    @Test func aPageSaysItIsTheClustersAndALocalPageCanSayItIsLocal() throws {
        let page = SharedAuditPage(limit: 1, read: [read("30-0", node: "n1", event(3))])
        let json = page.json
        #expect(json["source"]?.stringValue == "cluster" && json["next"]?.stringValue == "30-0")
        #expect(json["events"]?.arrayValue?.first?["node"]?.stringValue == "n1")
        #expect(SharedAuditPage().json["next"] == nil)
        let local = AuditPage(entries: [AuditPage.Entry(cursor: AuditCursor(segment: 1, offset: 0), event: event(1))])
        #expect(local.json(source: "local")["source"]?.stringValue == "local")
        // A single server's page is as it always was: no source.
        #expect(local.json["source"] == nil && local.json == local.json(source: nil))
    }
}
