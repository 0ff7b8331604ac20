// swift-tools-version:6.0
import PackageDescription

// Warnings are errors in CI (`make build` passes -warnings-as-errors); Swift 6 language mode everywhere.
// The targets follow the architecture (docs/architecture.md): the engine knows nothing of the server,
// the hub knows nothing of libwebsockets, only HeraldLWS imports libwebsockets and only HeraldRedis imports hiredis.
let package = Package(
    name: "Herald",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        .library(name: "HeraldSupport", targets: ["HeraldSupport"]),
        .library(name: "HeraldEngine", targets: ["HeraldEngine"]),
        .library(name: "HeraldServer", targets: ["HeraldServer"]),
        .library(name: "HeraldLWS", targets: ["HeraldLWS"]),
        .library(name: "HeraldBench", targets: ["HeraldBench"]),
        .library(name: "HeraldRedis", targets: ["HeraldRedis"]),
        .library(name: "HeraldCluster", targets: ["HeraldCluster"]),
        .library(name: "HeraldCrypto", targets: ["HeraldCrypto"]),
        .library(name: "HeraldWebhooks", targets: ["HeraldWebhooks"]),
        .library(name: "HeraldAccess", targets: ["HeraldAccess"]),
    ],
    targets: [
        // Debian's libwebsockets 4.1.6 behind a small shim.
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]
        ),
        // Debian's hiredis 0.14.1 (the blocking API) behind a small shim, for the Redis layer
        // (libhiredis-dev; `make deps` installs it). No pkgConfig: hiredis.pc's only flags are the
        // include path the shim does not need and -D_FILE_OFFSET_BITS=64, which SwiftPM refuses with
        // a warning on every build.
        .systemLibrary(name: "CHiredis"),
        // glibc's GNU extensions for starting a job's program (posix_spawn in a new session, in a
        // folder, closing descriptors) and for capping malloc arenas: declarations and one-line
        // inline wrappers, no C sources.
        .systemLibrary(name: "CSystemExtras"),
        // OpenSSL's libcrypto (Debian 12: 3.0, libssl-dev) behind a small shim: HMAC, constant-time
        // comparison, public keys and signature verification. Herald writes no cryptography of its own.
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // Debian's libargon2 (the reference implementation, libargon2-dev) behind a small shim: the
        // users file's password hashes. No pkgConfig: its only flag is the library itself.
        .systemLibrary(name: "CArgon2", providers: [.apt(["libargon2-dev"])]),
        // Swift values over libcrypto (HMAC for webhook signatures, public keys that verify JWTs):
        // the only code that imports CLibCrypto.
        // Also the only code that imports CArgon2 (password hashes).
        .target(name: "HeraldCrypto", dependencies: ["CLibCrypto", "CArgon2"]),
        // Who may see and do what: roles, scopes, principals and the credentials that prove them
        // (users file, API keys, JWTs, sessions). Pure Swift over HeraldCrypto; no sockets. Below the
        // engine: share links and the audit trail, which keep files like the history, live in HeraldEngine/Access.
        .target(name: "HeraldAccess", dependencies: ["HeraldCrypto", "HeraldSupport"]),
        // Jobs, the dispatcher, the wire protocol's codecs: pure Swift, no sockets.
        // What every module may use and none should own: log levels and sinks, the wall clock.
        .target(name: "HeraldSupport"),
        .target(name: "HeraldEngine", dependencies: ["CSystemExtras", "HeraldSupport", "HeraldAccess", "HeraldCrypto"]),
        // The stream hub (connections, outboxes, slow-client policy, commands, REST routes) and the
        // inbox between the engine and the service thread: pure Swift, no sockets, no C.
        .target(name: "HeraldServer", dependencies: ["HeraldEngine", "HeraldSupport", "HeraldAccess"]),
        // The libwebsockets transport (server) and client: the only code that sees an lws pointer.
        .target(name: "HeraldLWS", dependencies: ["HeraldEngine", "HeraldServer", "HeraldSupport", "CLibWebSockets"]),
        // Benchmark-only job kinds (`herald serve --bench`), kept out of the engine's core.
        .target(name: "HeraldBench", dependencies: ["HeraldEngine"]),
        // A Redis client over hiredis (connections, pipelines, scripts, backoff): the only code that
        // sees a hiredis pointer; knows nothing of the engine or the server.
        .target(name: "HeraldRedis", dependencies: ["CHiredis"]),
        // A cluster node (`herald serve --redis`): the engine in front of a node's dispatcher that shares
        // one ordered stream with every other node through Redis Streams (docs/scaling.md).
        .target(name: "HeraldCluster", dependencies: ["HeraldEngine", "HeraldRedis", "HeraldAccess"]),
        // Webhook deliveries over HTTP (FoundationNetworking's URLSession, libcurl underneath) and their
        // Standard Webhooks signatures: kept out of the engine, which stays Foundation-only and hands
        // each attempt to a `WebhookTransport`.
        .target(name: "HeraldWebhooks", dependencies: ["HeraldEngine", "HeraldCrypto", "HeraldSupport"]),
        .executableTarget(
            name: "herald",
            dependencies: [
                "HeraldSupport", "HeraldEngine", "HeraldServer", "HeraldLWS", "HeraldBench", "HeraldRedis", "HeraldCluster",
                "HeraldWebhooks", "HeraldAccess", "CSystemExtras",
            ]),
        // What the test targets share: polling and a locked value, temporary folders, free loopback
        // ports, a real redis-server. A library target (test targets cannot depend on each other);
        // `make run` builds only the herald product, so it never builds this.
        .target(name: "HeraldTestSupport", dependencies: ["HeraldRedis"], path: "Tests/HeraldTestSupport"),
        .testTarget(
            name: "HeraldEngineTests", dependencies: ["HeraldEngine", "HeraldAccess", "HeraldCrypto", "HeraldBench", "HeraldTestSupport"]),
        // The hub alone, no sockets.
        .testTarget(name: "HeraldServerTests", dependencies: ["HeraldSupport", "HeraldEngine", "HeraldServer", "HeraldTestSupport"]),
        // Live servers and clients over libwebsockets; CLibWebSockets (and libssl) for `TLSSocket`, a
        // TLS client that can misbehave (stop reading).
        .testTarget(
            name: "HeraldLWSTests",
            dependencies: [
                "HeraldSupport", "HeraldEngine", "HeraldServer", "HeraldLWS", "HeraldBench", "CLibWebSockets", "HeraldTestSupport",
            ],
            linkerSettings: [.linkedLibrary("ssl")]),
        // HMAC against RFC 4231's vectors.
        .testTarget(name: "HeraldCryptoTests", dependencies: ["HeraldCrypto"]),
        // Roles, scopes and credentials, no sockets.
        .testTarget(name: "HeraldAccessTests", dependencies: ["HeraldAccess", "HeraldCrypto", "HeraldSupport", "HeraldTestSupport"]),
        // Signatures and the URLSession transport against a receiver on a free loopback port.
        .testTarget(name: "HeraldWebhooksTests", dependencies: ["HeraldWebhooks", "HeraldEngine", "HeraldCrypto", "HeraldTestSupport"]),
        // The Redis client on a real redis-server.
        .testTarget(name: "HeraldRedisTests", dependencies: ["HeraldRedis", "HeraldTestSupport"]),
        // The cluster node on a real redis-server.
        .testTarget(
            name: "HeraldClusterTests", dependencies: ["HeraldCluster", "HeraldRedis", "HeraldEngine", "HeraldTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
