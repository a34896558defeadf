/// Builds an XML document as text, indented by four spaces as Xcode writes model files.
struct XMLWriter {
    private(set) var text = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
    private var depth = 0

    /// Writes `<name a="…"/>`, or `<name a="…">` with the children `body` writes, then `</name>`.
    /// Attributes whose value is `nil` are left out.
    mutating func element(_ name: String, _ attributes: [(String, String?)] = [], body: ((inout XMLWriter) -> Void)? = nil) {
        let written = attributes.compactMap { key, value in value.map { " \(key)=\"\(Self.escape($0))\"" } }.joined()
        let indent = String(repeating: "    ", count: depth)
        guard let body else {
            text += "\(indent)<\(name)\(written)/>\n"
            return
        }
        let start = text.endIndex
        text += "\(indent)<\(name)\(written)>\n"
        let afterStart = text.endIndex
        depth += 1
        body(&self)
        depth -= 1
        if text.endIndex == afterStart {
            text.replaceSubrange(start..., with: "\(indent)<\(name)\(written)/>\n")
        } else {
            text += "\(indent)</\(name)>\n"
        }
    }

    static func escape(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "\n": escaped += "&#10;"
            case "\r": escaped += "&#13;"
            case "\t": escaped += "&#9;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
