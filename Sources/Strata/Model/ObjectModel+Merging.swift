extension ObjectModel {
    /// One model holding the entities, configurations and fetch request templates of `models`,
    /// as Core Data's `NSManagedObjectModel.mergedModel(from:)` makes one for an app whose
    /// entities are spread over several model files. A store of such an app records the
    /// version hashes of every entity of every model, so only the merged model matches it.
    ///
    /// ```swift
    /// let merged = try ObjectModel(merging: [notes.model, accounts.model])
    /// merged.entityVersionHashes().count   // the entities of both
    /// ```
    ///
    /// - Parameter names: how to name each model in an error (its file), in the order of `models`.
    /// - Throws: ``ModelError/invalidContent(path:location:message:)`` when two models define
    ///   an entity of the same name, naming both.
    public init(merging models: [ObjectModel], names: [String] = []) throws(ModelError) {
        func name(_ index: Int) -> String { index < names.count ? names[index] : "model \(index + 1)" }
        var owners: [String: Int] = [:]
        for (index, model) in models.enumerated() {
            for entity in model.entities {
                if let first = owners[entity.name] {
                    throw .invalidContent(
                        path: name(index), location: nil,
                        message: "entity '\(entity.name)' is also defined by \(name(first)); models merged into one must not share entity names")
                }
                owners[entity.name] = index
            }
        }
        self.init(entities: models.flatMap(\.entities))
        configurations = models.flatMap(\.configurations)
        fetchRequestTemplates = models.flatMap(\.fetchRequestTemplates)
        versionIdentifier = models.map(\.versionIdentifier).filter { !$0.isEmpty }.joined(separator: ", ")
    }
}
