// swift-tools-version:6.0
import Foundation
import PackageDescription

// Herald's benchmarks: a package of their own so that the server's package, its tests and CI never
// build them. It depends on the checkout it sits in. A path dependency's identity is the name of its
// folder, which differs between checkouts, so it is read from this file's location.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let herald = root.lastPathComponent

let package = Package(
    name: "HeraldBench",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        // Nanoseconds per ProgressReporter call, through a real JobDispatcher (and optionally with a
        // real WebSocketServer fanning a ticker out to clients at the same time).
        .executableTarget(
            name: "report-cost",
            dependencies: [
                .product(name: "HeraldEngine", package: herald),
                .product(name: "HeraldServer", package: herald),
                .product(name: "HeraldLWS", package: herald),
                .product(name: "HeraldBench", package: herald),
            ],
            path: "Sources/report-cost"),
        // The release `herald` binary's search against grep -rF and rg -F on a generated corpus.
        .executableTarget(name: "search-throughput", path: "Sources/search-throughput"),
        // The load generator: N WebSocket connections on one libwebsockets context, one thread (C).
        .executableTarget(
            name: "bench-client", path: "Sources/bench-client",
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("websockets")]),
    ],
    swiftLanguageModes: [.v6]
)
