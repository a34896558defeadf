// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Strata",
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataLua", targets: ["StrataLua"]),
        .executable(name: "strata", targets: ["strata"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // MARK: - System libraries

        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]),
        .systemLibrary(
            name: "CEditLine",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]),
        .target(
            name: "CLuaBridge",
            dependencies: ["CLua"]),

        // MARK: - Strata

        .target(
            name: "Strata",
            dependencies: [
                "CSQLite",
                "CZlib",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "StrataLua",
            dependencies: ["Strata", "CLua", "CLuaBridge", .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "StrataCLI",
            dependencies: [
                "Strata",
                "StrataLua",
                "CEditLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(
            name: "strata",
            dependencies: ["StrataCLI"],
            // A release build links the Swift runtime and Foundation into the executable, so
            // that a process starts without loading and binding their shared libraries: most
            // of the time of a short command (issue 35; BENCHMARKS.md, cases 8 and 8b). The
            // libraries are named because the objects are compiled for the shared runtime,
            // whose link entries name Foundation alone; these are what Swift 6.3's static
            // Foundation needs on Linux (libxml2 for FoundationXML stays shared).
            linkerSettings: [.unsafeFlags(
                ["-static-stdlib"] + [
                    "FoundationXML", "_CFXMLInterface", "xml2", "Foundation", "FoundationInternationalization",
                    "FoundationEssentials", "CoreFoundation", "_FoundationICU", "_FoundationCollections", "_FoundationCShims",
                    "swiftSynchronization", "swiftDispatch", "dispatch", "BlocksRuntime", "swift_Concurrency",
                    "swift_StringProcessing", "swift_RegexParser", "swiftGlibc", "stdc++", "uuid",
                ].map { "-l" + $0 },
                .when(platforms: [.linux], configuration: .release))]),

        // MARK: - Tests

        .executableTarget(
            name: "AsyncMainProbe",
            dependencies: ["Strata"],
            path: "Tests/AsyncMainProbe"),

        // What every test target shares: the temporary folders tests make their files in.
        .target(
            name: "StrataTestSupport",
            path: "Tests/StrataTestSupport"),
        .testTarget(
            name: "StrataTests",
            // strata itself: the predicate suite's negations also run through `strata delete`.
            dependencies: ["Strata", "strata", "StrataTestSupport"]),
        .testTarget(
            name: "StrataAPITests",
            dependencies: ["Strata", "StrataLua", "StrataTestSupport"]),
        .testTarget(
            name: "StrataLuaTests",
            dependencies: ["StrataLua", "StrataTestSupport"]),
        .testTarget(
            name: "StrataCLITests",
            dependencies: ["StrataCLI", "strata", "AsyncMainProbe", "StrataTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
