extension ObjectModel {
    /// The fetch request of the model's template `name`, with its `$VARIABLE`s replaced by
    /// `substitutionVariables`: Core Data's `fetchRequestFromTemplate(withName:substitutionVariables:)`.
    ///
    /// ```swift
    /// let request = try model.fetchRequest(fromTemplate: "BooksByAuthor", substitutionVariables: ["NAME": "Le Guin"])
    /// let books = try context.fetch(request)
    /// ```
    ///
    /// - Throws: ``FetchRequestError`` naming the template when the model has no such template
    ///   (with the nearest names), when its predicate does not parse, or when a variable has no value.
    public func fetchRequest(fromTemplate name: String, substitutionVariables: [String: PredicateValue] = [:]) throws(FetchRequestError) -> FetchRequest {
        guard let template = fetchRequestTemplates.first(where: { $0.name == name }) else {
            let known = fetchRequestTemplates.map(\.name).sorted()
            throw FetchRequestError(
                "the model has no fetch request template '\(name)'\(didYouMean(name, among: known)); templates: \(known.isEmpty ? "none" : known.joined(separator: ", "))")
        }
        var request = FetchRequest(entityName: template.entityName)
        if let format = template.predicate {
            do {
                request.predicate = try ObjectPredicate(format: format).substituting(substitutionVariables)
            } catch {
                throw FetchRequestError("fetch request template '\(name)': \(error)")
            }
        }
        request.resultType = switch template.resultType {
        case .managedObject: .managedObject
        case .managedObjectID: .managedObjectID
        case .dictionary: .dictionary
        case .count: .count
        }
        request.fetchLimit = template.fetchLimit ?? 0
        request.fetchOffset = template.fetchOffset ?? 0
        request.fetchBatchSize = template.fetchBatchSize ?? 0
        request.returnsDistinctResults = template.returnsDistinctResults ?? false
        request.includesSubentities = template.includesSubentities ?? true
        request.includesPropertyValues = template.includesPropertyValues ?? true
        request.includesPendingChanges = template.includesPendingChanges ?? true
        request.returnsObjectsAsFaults = template.returnsObjectsAsFaults ?? true
        return request
    }
}
