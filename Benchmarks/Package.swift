// swift-tools-version:6.0
import PackageDescription

// Strata's benchmarks: every case side by side with its baseline (raw SQLite in C, GRDB,
// sqlite-utils, the sqlite3 shell) in one process run. `scripts/bench` builds and runs them.
let package = Package(
    name: "StrataBenchmarks",
    dependencies: [
        .package(name: "Strata", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(
            name: "CBaseline",
            linkerSettings: [.linkedLibrary("sqlite3")]),
        .executableTarget(
            name: "strata-bench",
            dependencies: [
                "CBaseline",
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataLua", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/StrataBench"),
    ],
    swiftLanguageModes: [.v6]
)
