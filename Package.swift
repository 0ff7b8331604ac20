// swift-tools-version:6.0
import PackageDescription

// Warnings are errors in CI (`make build` passes -warnings-as-errors); Swift 6 language mode everywhere.
let package = Package(
    name: "Herald",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        .library(name: "HeraldEngine", targets: ["HeraldEngine"]),
        .library(name: "HeraldServer", targets: ["HeraldServer"]),
    ],
    targets: [
        // The only C in the project: Debian's libwebsockets 4.1.6 behind a small shim.
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]
        ),
        // Jobs, the dispatcher, the wire protocol's codecs: pure Swift, no sockets.
        .target(name: "HeraldEngine"),
        // libwebsockets confined here: no lws pointer leaves this module.
        .target(name: "HeraldServer", dependencies: ["HeraldEngine", "CLibWebSockets"]),
        .executableTarget(name: "herald", dependencies: ["HeraldEngine", "HeraldServer"]),
        .testTarget(name: "HeraldEngineTests", dependencies: ["HeraldEngine"]),
        .testTarget(name: "HeraldServerTests", dependencies: ["HeraldEngine", "HeraldServer"]),
    ],
    swiftLanguageModes: [.v6]
)
