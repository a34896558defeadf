/// `; did you mean 'X'?` when one of `names` is close enough to `name` to be what a user
/// meant to type (a few letters apart), else the empty string.
func didYouMean(_ name: String, among names: [String]) -> String {
    nearestName(to: name, among: names).map { "; did you mean '\($0)'?" } ?? ""
}

/// The one of `names` close enough to `name` to be what a user meant to type (a few letters
/// apart, ignoring case), the closest first; `nil` when none is.
///
/// ```swift
/// nearestName(to: "titel", among: ["title", "rating"])   // "title"
/// ```
package func nearestName(to name: String, among names: [String]) -> String? {
    names.map { ($0, editDistance(name.lowercased(), $0.lowercased())) }
        .filter { $0.1 <= max(2, name.count / 3) && $0.1 < name.count }
        .min { $0.1 < $1.1 }?.0
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
