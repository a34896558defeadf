import ArgumentParser

/// How a read command prints what it found: an aligned table for people, JSON for programs.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument, FormatChoice {
    case table
    case json

    static let defaultFormat = OutputFormat.table
    static let formatHelp = "Output format: table or json."
}
