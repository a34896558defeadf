// swift-tools-version:5.4
import PackageDescription

// Strata's libFuzzer targets: the predicate parser, the JSON importer and the Xcode model XML
// reader, each fed bytes by libFuzzer. They only build with `-sanitize=fuzzer` (libFuzzer
// provides `main`) and `-parse-as-library` (so that the target defines no `main` of its own);
// `scripts/fuzz` builds and runs them.
//
// The tools version stays below 5.5 on purpose: from 5.5 on, SwiftPM links every Swift
// executable with `--defsym main=<module>_main`, a symbol a `-parse-as-library` target never
// defines, and the link fails. The sources still build in the Swift 6 language mode.
let package = Package(
    name: "StrataFuzz",
    dependencies: [
        .package(name: "Strata", path: ".."),
    ],
    targets: [
        .target(
            name: "StrataFuzzSupport",
            dependencies: [.product(name: "Strata", package: "Strata")]),
        .executableTarget(
            name: "fuzz-predicate",
            dependencies: ["StrataFuzzSupport", .product(name: "Strata", package: "Strata")],
            path: "Sources/FuzzPredicate"),
        .executableTarget(
            name: "fuzz-json-import",
            dependencies: ["StrataFuzzSupport", .product(name: "Strata", package: "Strata")],
            path: "Sources/FuzzJSONImport"),
        .executableTarget(
            name: "fuzz-model-xml",
            dependencies: [.product(name: "Strata", package: "Strata")],
            path: "Sources/FuzzModelXML"),
    ],
    swiftLanguageVersions: [.version("6")]
)
