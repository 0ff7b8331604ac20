@testable import HeraldEngine
import Foundation
import HeraldAccess
import HeraldCrypto
import HeraldTestSupport
import Testing

@Suite struct ShareLinksTests {
    private let hour = Duration.seconds(3600)
    private let start: Int64 = 1_800_000_000_000

    @Test func aLinkIsAViewerOfOneJobUntilItExpires() throws {
        var links = try ShareLinks()
        let (token, link) = try links.make(job: "j-42", creator: "ann", lifetime: hour, now: start).get()
        let principal = try links.verify(token, now: start + 1).get()
        #expect(principal.name == "share:\(link.id)")
        #expect(principal.role == .viewer)
        #expect(principal.scope == AccessScope(jobs: ["j-42"]))
        #expect(principal.expiresAtMilliseconds == start + 3_600_000)
        #expect(principal.source == .shareLink(id: link.id))
        #expect(principal.refusal(of: .start(kind: "search")) != nil)
        #expect(link.job == "j-42" && link.creator == "ann" && link.expiresAt == start + 3_600_000)
        #expect(links.verify(token, now: start + 3_600_000).error == .unauthorized("share link expired"))
    }

    @Test func theTokenIsTheDocumentedPayloadAndItsHMAC() throws {
        var state = ShareLinkState(generation: 3)
        var links = try ShareLinks(state: state)
        let (token, link) = try links.make(job: "j-7", creator: "ann", lifetime: hour, now: start).get()
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 2)
        let payload = try #require(Self.base64URLDecode(parts[0]))
        #expect(
            String(decoding: payload, as: UTF8.self) == #"{"v":1,"id":"\#(link.id)","job":"j-7","exp":\#(start / 1000 + 3600),"kid":3}"#)
        // An independent check of the signature: HMAC-SHA256 of the payload under the state's key.
        state = links.state
        let key = [UInt8](try #require(Data(base64Encoded: state.key)))
        #expect(Self.base64URLDecode(parts[1]) == HMAC.sha256(key: key, message: payload))
    }

    @Test func tamperedForgedAndMalformedTokensAreRefusedWithoutEchoingThem() throws {
        var links = try ShareLinks()
        let (token, _) = try links.make(job: "j-1", creator: "ann", lifetime: hour, now: start).get()
        let parts = token.split(separator: ".").map(String.init)
        let payload = String(decoding: try #require(Self.base64URLDecode(parts[0])), as: UTF8.self)
        let otherJob = Self.base64URLEncode(Array(payload.replacingOccurrences(of: "j-1", with: "j-2").utf8))
        let later = Self.base64URLEncode(Array(payload.replacingOccurrences(of: "\"exp\":", with: "\"exp\":9").utf8))
        var stranger = try ShareLinks()
        let (foreign, _) = try stranger.make(job: "j-1", creator: "eve", lifetime: hour, now: start).get()
        let cases = [
            otherJob + "." + parts[1], later + "." + parts[1], foreign, parts[0], parts[0] + ".", "." + parts[1], token + "x",
            token + "=", "", String(repeating: "A", count: 100_000), parts[0] + "." + parts[0],
        ]
        for bad in cases {
            let refusal = try #require(links.verify(bad, now: start).error)
            #expect(refusal.kind == .unauthorized)
            #expect(!refusal.message.contains(parts[1]))
            #expect(refusal.message.hasPrefix("share link "))
        }
    }

    @Test func revokingOneLinkLeavesTheOthers() throws {
        var links = try ShareLinks()
        let (first, firstLink) = try links.make(job: "j-1", creator: "ann", lifetime: hour, now: start).get()
        let (second, _) = try links.make(job: "j-1", creator: "ann", lifetime: hour, now: start).get()
        #expect(links.revoke(id: firstLink.id, now: start)?.id == firstLink.id)
        #expect(links.revoke(id: "no-such-link", now: start) == nil)
        #expect(links.verify(first, now: start).error == .unauthorized("share link revoked"))
        #expect(links.verify(second, now: start).value != nil)
        #expect(links.list(now: start).count == 1)
        // Once expired, the revocation is forgotten: the token fails as expired.
        links.removeExpired(now: start + 3_600_000)
        #expect(links.state.revoked.isEmpty && links.state.links.isEmpty)
        #expect(links.verify(first, now: start + 3_600_000).error == .unauthorized("share link expired"))
    }

    @Test func revokingAllRotatesTheKey() throws {
        var links = try ShareLinks()
        let (old, _) = try links.make(job: "j-1", creator: "ann", lifetime: hour, now: start).get()
        let oldKey = links.state.key
        #expect(links.revokeAll().count == 1)
        #expect(links.state.generation == 2 && links.state.key != oldKey && links.state.links.isEmpty)
        #expect(links.verify(old, now: start).error == .unauthorized("share link revoked"))
        let (fresh, _) = try links.make(job: "j-1", creator: "ann", lifetime: hour, now: start).get()
        #expect(links.verify(fresh, now: start).value != nil)
    }

    @Test func lifetimeAndCountAreBounded() throws {
        var links = try ShareLinks(maxLifetime: .seconds(86_400), maxLinks: 2)
        #expect(
            links.make(job: "j", creator: "a", lifetime: .seconds(86_401), now: start).error?.message
                == "a share link may last at most 1 day")
        #expect(links.make(job: "", creator: "a", lifetime: hour, now: start).error?.kind == .forbidden)
        #expect(links.make(job: "j", creator: "a", lifetime: .zero, now: start).error?.kind == .forbidden)
        _ = try links.make(job: "j", creator: "a", lifetime: .seconds(10), now: start).get()
        _ = try links.make(job: "j", creator: "a", lifetime: hour, now: start).get()
        #expect(links.make(job: "j", creator: "a", lifetime: hour, now: start).error?.kind == .forbidden)
        // The first expired: room for one more.
        #expect(links.make(job: "j", creator: "a", lifetime: hour, now: start + 10_000).value != nil)
    }

    @Test func theStateSurvivesARestartThroughItsFile() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.url.appendingPathComponent("share-links.json")
        #expect(try ShareLinkState.load(from: url) == nil)
        var links = try ShareLinks()
        let (kept, _) = try links.make(job: "j-1", creator: "ann", lifetime: hour, now: start).get()
        let (revoked, revokedLink) = try links.make(job: "j-2", creator: "ann", lifetime: hour, now: start).get()
        links.revoke(id: revokedLink.id, now: start)
        try links.state.save(to: url)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let restored = try ShareLinks(state: try #require(try ShareLinkState.load(from: url)))
        #expect(restored.state == links.state)
        #expect(restored.verify(kept, now: start).value?.scope == AccessScope(jobs: ["j-1"]))
        #expect(restored.verify(revoked, now: start).error == .unauthorized("share link revoked"))
        // Nothing but the state file is left in the folder (no temporary file).
        #expect(folder.names() == ["share-links.json"])
    }

    @Test func aDamagedStateFileIsAnErrorNotANewKey() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.url.appendingPathComponent("share-links.json")
        try Data("{\"version\":1,\"generation\":1,\"key\":\"c2hvcnQ=\",\"links\":[],\"revoked\":[]}".utf8).write(to: url)
        #expect(throws: ShareLinkState.Failure.self) { try ShareLinkState.load(from: url) }
        try Data("{not json".utf8).write(to: url)
        #expect(throws: ShareLinkState.Failure.self) { try ShareLinkState.load(from: url) }
    }

    static func base64URLDecode(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }

    static func base64URLEncode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
