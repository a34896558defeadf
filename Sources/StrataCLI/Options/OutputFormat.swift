import ArgumentParser

/// How a read command prints what it found: an aligned table for people, JSON for programs.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    case table
    case json
}
