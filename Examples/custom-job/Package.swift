// swift-tools-version:6.0
import Foundation
import PackageDescription

// A program that serves its own job kind with Herald: the example of docs/jobs.md ("From Swift"),
// built and driven by `make test`. It depends on the checkout it sits in. A path dependency's
// identity is the name of its folder, which differs between checkouts, so it is read from this
// file's location (as bench/Package.swift does); in your own package, depend on Herald by URL.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let herald = root.lastPathComponent

let package = Package(
    name: "custom-job",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(
            name: "custom-job",
            dependencies: [
                .product(name: "HeraldEngine", package: herald),
                .product(name: "HeraldLWS", package: herald),
            ])
    ],
    swiftLanguageModes: [.v6]
)
