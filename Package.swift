// swift-tools-version:6.0
import PackageDescription

// The suites that run code on several threads at once (contexts on several queues, processes
// on one store, the Lua bridge's interrupter and watchers, the CLI's status line), by test
// target, with the files of the helpers they use; `nil` takes a whole target. scripts/test
// runs these under ThreadSanitizer and every other suite in the plain build. With
// STRATA_THREADED_SUITES_ONLY set, a test target compiles only its files here, so that the
// sanitizer's build leaves out the tests it would not run (tests are two thirds of a build's
// processor time). A suite that starts threads belongs in this list.
let threadedSuites: [String: [String]?] = [
    "StrataTests": [
        "Context/ContextConcurrencyTests.swift", "Context/ContextRegressionTests.swift", "Context/ContextTopologyTests.swift",
        "Context/MergePolicyTests.swift", "Context/ObjectContextTests.swift", "Context/PersistentHistoryAPITests.swift",
        "Context/ProcessTests.swift", "Observing/ChangeNoticeTests.swift", "Observing/FetchedResultsControllerTests.swift",
        "Observing/ObjectMonitorTests.swift", "Stack/DataStackTests.swift", "Stack/LogoutResetTests.swift",
        "Stack/UpdateContextTests.swift",
        // Helpers
        "Generated", "Import/ImportTestSupport.swift", "Store/TrackedStore.swift", "Support/Fixtures.swift",
        "Support/ObjectContext+Making.swift",
    ],
    "StrataAPITests": nil,
    "StrataLuaTests": nil,
    "StrataCLITests": [
        "AsyncMainTests.swift", "ConcurrentProcessTests.swift", "ScriptConcurrencyTests.swift", "StackCommandTests.swift",
        // Helpers
        "LibraryExample.swift", "ScriptCommandTesting.swift", "ShellOnTerminal.swift", "StoreState.swift", "StrataRunner.swift", "StrataRunner+Terminal.swift",
        "StressHarness.swift",
    ],
]
let threadedSuitesOnly = Context.environment["STRATA_THREADED_SUITES_ONLY"] != nil

/// The sources of the test target `name`: all of its files, or only its threaded suites'.
func testSources(_ name: String) -> [String]? {
    threadedSuitesOnly ? threadedSuites[name, default: nil] : nil
}

// A test target's module compiles in one job rather than two. A whole-module build (the
// release configuration, which scripts/test builds the tests in) emits a module's interface in
// a job of its own by default, so that the modules that import it can start before its code is
// generated; that job type-checks every declaration again, and a test target's declarations
// are mostly the expansions of Swift Testing's macros. Only the discovered-tests module,
// compiled after every test target, imports a test target, so its module has no one to start
// early for.
let testTargetSettings: [SwiftSetting] = [.unsafeFlags(["-no-emit-module-separately-wmo"], .when(configuration: .release))]

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
            // The predicate suite's negations also run through `strata delete`, the binary that
            // StrataCLITests' dependency puts beside the test bundle. Not a dependency here: it
            // would hold this target's compilation back until the command line's is done, where
            // the two can compile side by side.
            dependencies: ["Strata", "StrataTestSupport"],
            sources: testSources("StrataTests"),
            swiftSettings: testTargetSettings),
        .testTarget(
            name: "StrataAPITests",
            dependencies: ["Strata", "StrataLua", "StrataTestSupport"],
            sources: testSources("StrataAPITests"),
            swiftSettings: testTargetSettings),
        .testTarget(
            name: "StrataLuaTests",
            dependencies: ["StrataLua", "StrataTestSupport"],
            sources: testSources("StrataLuaTests"),
            swiftSettings: testTargetSettings),
        .testTarget(
            name: "StrataCLITests",
            dependencies: ["StrataCLI", "strata", "AsyncMainProbe", "StrataTestSupport"],
            sources: testSources("StrataCLITests"),
            swiftSettings: testTargetSettings),
    ],
    swiftLanguageModes: [.v6]
)
