// swift-tools-version:6.0
import PackageDescription

// Warnings are errors in CI (`make build` passes -warnings-as-errors); Swift 6 language mode everywhere.
// The targets follow the architecture (docs/architecture.md): the engine knows nothing of the server,
// the hub knows nothing of libwebsockets, and only HeraldLWS imports the C library.
let package = Package(
    name: "Herald",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        .library(name: "HeraldEngine", targets: ["HeraldEngine"]),
        .library(name: "HeraldServer", targets: ["HeraldServer"]),
        .library(name: "HeraldLWS", targets: ["HeraldLWS"]),
        .library(name: "HeraldBench", targets: ["HeraldBench"]),
    ],
    targets: [
        // The only C in the project: Debian's libwebsockets 4.1.6 behind a small shim.
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]
        ),
        // glibc's GNU extensions for starting a job's program (posix_spawn in a new session, in a
        // folder, closing descriptors): declarations only, no C code.
        .systemLibrary(name: "CSystemExtras"),
        // Jobs, the dispatcher, the wire protocol's codecs: pure Swift, no sockets.
        .target(name: "HeraldEngine", dependencies: ["CSystemExtras"]),
        // The stream hub (connections, outboxes, slow-client policy, commands, REST routes) and the
        // inbox between the engine and the service thread: pure Swift, no sockets, no C.
        .target(name: "HeraldServer", dependencies: ["HeraldEngine"]),
        // The libwebsockets transport (server) and client: the only code that sees an lws pointer.
        .target(name: "HeraldLWS", dependencies: ["HeraldEngine", "HeraldServer", "CLibWebSockets"]),
        // Benchmark-only job kinds (`herald serve --bench`), kept out of the engine's core.
        .target(name: "HeraldBench", dependencies: ["HeraldEngine"]),
        .executableTarget(name: "herald", dependencies: ["HeraldEngine", "HeraldServer", "HeraldLWS", "HeraldBench"]),
        .testTarget(name: "HeraldEngineTests", dependencies: ["HeraldEngine", "HeraldBench"]),
        .testTarget(name: "HeraldServerTests", dependencies: ["HeraldEngine", "HeraldServer", "HeraldLWS", "HeraldBench"]),
    ],
    swiftLanguageModes: [.v6]
)
