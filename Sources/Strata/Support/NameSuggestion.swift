/// `; did you mean 'X'?` when one of `names` is close enough to `name` to be what a user
/// meant to type (a few letters apart), else the empty string.
func didYouMean(_ name: String, among names: [String]) -> String {
    let nearest = names.map { ($0, editDistance(name.lowercased(), $0.lowercased())) }
        .filter { $0.1 <= max(2, name.count / 3) && $0.1 < name.count }
        .min { $0.1 < $1.1 }
    return nearest.map { "; did you mean '\($0.0)'?" } ?? ""
}

/// The Levenshtein distance between two strings, in characters.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
