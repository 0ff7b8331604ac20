import Foundation
import HeraldCrypto
import Testing

@testable import HeraldAccess

/// Passwords and API keys checked against a loaded users file.
@Suite struct UserDirectoryTests {
    static let cheap = Argon2id.Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)

    @Test func aPasswordVerifiesOnlyForItsUser() throws {
        let file = UsersFile(users: [
            .init(name: "alice", role: .admin, passwordHash: Argon2id.hash(password: "alice's password", parameters: Self.cheap)),
            .init(name: "bob", role: .viewer, passwordHash: Argon2id.hash(password: "bob's password", parameters: Self.cheap)),
        ])
        let directory = UserDirectory(file)
        let alice = try #require(directory.verifyPassword(user: "alice", password: "alice's password"))
        #expect(alice.name == "alice" && alice.role == .admin && alice.scope.isUnlimited)
        #expect(alice.source == .session(user: "alice", session: ""))
        #expect(directory.verifyPassword(user: "bob", password: "bob's password")?.role == .viewer)
        #expect(directory.verifyPassword(user: "alice", password: "bob's password") == nil)
        #expect(directory.verifyPassword(user: "alice", password: "") == nil)
        #expect(directory.verifyPassword(user: "carol", password: "alice's password") == nil)
        #expect(directory.verifyPassword(user: "Alice", password: "alice's password") == nil)
    }

    /// An unknown user costs the same argon2id work as a known one: the dummy hash has the users'
    /// parameters (not the standard ones, which would make unknown names slower or faster) and is well
    /// formed, so libargon2 really computes it rather than refusing it at once.
    @Test func unknownUsersAreVerifiedAgainstADummyOfTheSameCost() {
        let file = UsersFile(users: [.init(name: "alice", role: .admin, passwordHash: Argon2id.hash(password: "p", parameters: Self.cheap))]
        )
        let dummy = UserDirectory(file).dummyHash
        #expect(Argon2id.parameters(of: dummy) == Self.cheap)
        #expect(Argon2id.parameters(of: UserDirectory(UsersFile()).dummyHash) == .standard)
    }

    @Test func aKeyMapsToItsNameRoleKindsAndExpiry() throws {
        let key = APIKey.generate()
        let other = APIKey.generate()
        let file = UsersFile(keys: [
            .init(name: "other", role: .admin, hash: other.storedHash, createdAt: 0),
            .init(name: "ci", role: .operator, kinds: ["deploy", "backup"], hash: key.storedHash, createdAt: 1_000, expiresAt: 2_000),
        ])
        let directory = UserDirectory(file)
        let principal = try directory.principal(forKey: key.text, now: 1_999_999).get()
        #expect(principal.name == "ci" && principal.role == .operator)
        #expect(principal.scope == AccessScope(kinds: ["deploy", "backup"]))
        #expect(principal.source == .key(name: "ci"))
        #expect(principal.expiresAtMilliseconds == 2_000_000)
        let unlimited = try directory.principal(forKey: other.text, now: 5_000_000_000_000).get()
        #expect(unlimited.name == "other" && unlimited.scope.isUnlimited && unlimited.expiresAtMilliseconds == nil)
    }

    @Test func expiredUnknownAndRevokedKeysAreRefused() {
        let key = APIKey.generate()
        var file = UsersFile(keys: [.init(name: "ci", role: .operator, hash: key.storedHash, createdAt: 1_000, expiresAt: 2_000)])
        let expired = UserDirectory(file).principal(forKey: key.text, now: 2_000_000)
        #expect(expired == .failure(.unauthorized("API key ci expired at 1970-01-01T00:33:20Z")))
        let stranger = APIKey.generate()
        for presented in [stranger.text, "", String(key.text.dropLast()), key.text + "x", String(repeating: "k", count: 10_000)] {
            guard case .failure(let refusal) = UserDirectory(file).principal(forKey: presented, now: 1_500_000) else {
                Issue.record("accepted \(presented)")
                continue
            }
            #expect(refusal.kind == .unauthorized)
            #expect(presented.isEmpty || !refusal.message.contains(presented), "a refusal never repeats the key")
        }
        let removed = file.removeKey(named: "ci")
        #expect(removed)
        #expect(UserDirectory(file).principal(forKey: key.text, now: 1_500_000) == .failure(.unauthorized("unknown or revoked API key")))
    }

    @Test func keysAreRandomURLSafeAndStoredOnlyAsTheirSHA256() {
        let key = APIKey.generate()
        #expect(key.text.hasPrefix("hk_") && key.text.utf8.count == 3 + 43)
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        #expect(key.text.utf8.dropFirst(3).allSatisfy { alphabet.contains($0) })
        #expect(key.storedHash == "sha256:" + SHA256.hexDigest(Array(key.text.utf8)))
        #expect(!key.storedHash.contains(key.text.dropFirst(3)))
        #expect(APIKey.generate() != key)
    }
}
