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
        // SHA-256/SHA-512 for Core Data's version hashes, from the system's OpenSSL. Chosen over
        // swift-crypto, which compiles its own copy of BoringSSL and added 1 to 1.5 minutes to
        // every CI build for two hash functions.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
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
                "CCrypto",
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
            dependencies: ["StrataCLI"]),

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
