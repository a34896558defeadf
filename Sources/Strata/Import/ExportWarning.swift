/// A Transformable attribute whose values an ``Exporter`` wrote, but not as values a reader of
/// the JSON can use: objects of classes other than the property-list ones, kept as their keyed
/// archives (`{"$class": …, "$archive": …}`), and bytes that are no keyed archive
/// (`{"$bytes": …}`). An import writes them back as they were; nothing is left out.
public struct ExportWarning: Sendable, Hashable, CustomStringConvertible {
    /// The entity of the objects whose values these are.
    public let entity: String
    /// The Transformable attribute.
    public let attribute: String
    /// The attribute's value transformer, when the model names one.
    public let valueTransformerName: String?
    /// How many values hold archived objects or are bytes.
    public private(set) var valueCount = 0
    /// How many of them are bytes that are no keyed archive.
    public private(set) var bytesCount = 0
    /// The classes of the archived objects, each once, in the order met.
    public private(set) var classNames: [String] = []

    init(entity: String, attribute: String, valueTransformerName: String?) {
        self.entity = entity
        self.attribute = attribute
        self.valueTransformerName = valueTransformerName
    }

    /// Counts one more value, holding objects of `classNames`, or bytes.
    mutating func count(classNames names: [String], isBytes: Bool) {
        valueCount += 1
        if isBytes { bytesCount += 1 }
        for name in names where !classNames.contains(name) { classNames.append(name) }
    }

    /// `Event.settings: 3 values hold objects of classes FigTimeObj, FFEventInfo, which Strata
    /// cannot read as values: exported as their keyed archives in base64 ($archive); …`, or for
    /// an app's own transformer `CollectionMD.dictionaryData: 11 values go through the value
    /// transformer DSMetadataTransformer, which Strata cannot run: …`.
    public var description: String {
        let ending = "; an import writes them back unchanged"
        if let valueTransformerName, !AttributeDescription.keyedArchiveTransformerNames.contains(valueTransformerName) {
            var forms: [String] = []
            if valueCount > bytesCount {
                let roots = classNames.count == 1 ? "class \(classNames[0])" : "classes \(classNames.joined(separator: ", "))"
                forms.append("keyed archives (of root \(roots)) as {\"$class\", \"$archive\"}")
            }
            if bytesCount > 0 { forms.append("other bytes as {\"$bytes\"}") }
            let values = valueCount == 1 ? "1 value goes" : "\(valueCount) values go"
            return "\(entity).\(attribute): \(values) through the value transformer \(valueTransformerName), which Strata cannot run: "
                + "exported as stored, in base64: \(forms.joined(separator: ", "))" + ending
        }
        var parts: [String] = []
        let archived = valueCount - bytesCount
        if archived > 0 {
            let kinds = classNames.count == 1 ? "class \(classNames[0])" : "classes \(classNames.joined(separator: ", "))"
            let values = archived == 1 ? "1 value holds" : "\(archived) values hold"
            parts.append("\(values) objects of \(kinds), which Strata cannot read as values: exported as their keyed archives in base64 ($archive)")
        }
        if bytesCount > 0 {
            let values = bytesCount == 1 ? "1 value is" : "\(bytesCount) values are"
            parts.append("\(values) not a keyed archive: exported as bytes in base64 ($bytes)")
        }
        return "\(entity).\(attribute): " + parts.joined(separator: "; ") + ending
    }
}
