/// Writes ``JSONValue``s as JSON text: pretty-printed with two-space indentation, or compact on
/// one line (for NDJSON). Object members keep their order, so output is deterministic.
///
/// ```swift
/// JSONWriter.string(from: .object(["name": .string("LOTR")]))
/// // {
/// //   "name": "LOTR"
/// // }
/// ```
package enum JSONWriter {
    /// The JSON text of `value`; `pretty` spreads containers over indented lines.
    package static func string(from value: JSONValue, pretty: Bool = true) -> String {
        var output = ""
        write(value, to: &output, indent: pretty ? 0 : nil)
        return output
    }

    /// Appends the JSON text of `value` to `output`; `pretty` spreads containers over lines
    /// indented from `level` spaces on, for a value nested in text written elsewhere.
    package static func append(_ value: JSONValue, to output: inout String, pretty: Bool = true, level: Int = 0) {
        write(value, to: &output, indent: pretty ? level : nil)
    }

    private static func write(_ value: JSONValue, to output: inout String, indent: Int?) {
        switch value.kind {
        case .null: output += "null"
        case .bool(let bool): output += bool ? "true" : "false"
        case .number(let text): output += text
        case .string(let string): writeString(string, to: &output)
        case .array(let values):
            writeContainer(values, open: "[", close: "]", to: &output, indent: indent) { element, output, indent in
                write(element, to: &output, indent: indent)
            }
        case .object(let members):
            writeContainer(members, open: "{", close: "}", to: &output, indent: indent) { member, output, indent in
                writeString(member.key, to: &output)
                output += indent == nil ? ":" : ": "
                write(member.value, to: &output, indent: indent)
            }
        }
    }

    private static func writeContainer<Element>(
        _ elements: [Element], open: String, close: String, to output: inout String, indent: Int?,
        writeElement: (Element, inout String, Int?) -> Void
    ) {
        output += open
        guard !elements.isEmpty else {
            output += close
            return
        }
        let inner = indent.map { $0 + 2 }
        for (index, element) in elements.enumerated() {
            if index > 0 { output += "," }
            if let inner { output += "\n" + String(repeating: " ", count: inner) }
            writeElement(element, &output, inner)
        }
        if let indent { output += "\n" + String(repeating: " ", count: indent) }
        output += close
    }

    private static func writeString(_ string: String, to output: inout String) {
        output += "\""
        // Most strings need no escape: they are copied whole, not scalar by scalar.
        guard string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            output += string
            output += "\""
            return
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                output += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
