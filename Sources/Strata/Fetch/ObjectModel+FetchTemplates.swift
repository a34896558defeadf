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

extension ObjectModel {
    /// Every check a model must pass before a store is made or opened for it:
    /// ``validate()``, then, when that finds no error, what keeps the model from being laid out
    /// in a store (``StoreLayout/issues(layingOut:)``) and fetch request templates whose
    /// predicate does not parse.
    ///
    /// ``validate()`` lives with the model and knows nothing of stores and predicates; this
    /// check, above both, is what ``ModelLoader/validated(_:version:checkingWith:)`` is given by
    /// the stack and the command line.
    public func validateForStore() -> [ModelIssue] {
        let issues = validate()
        guard !issues.contains(where: { $0.severity == .error }) else { return issues }
        return issues + StoreLayout.issues(layingOut: self) + fetchRequestTemplateIssues()
    }

    /// A template or fetched property whose predicate does not parse is refused when the model
    /// is loaded, not when it is first used.
    func fetchRequestTemplateIssues() -> [ModelIssue] {
        let templates = fetchRequestTemplates.compactMap { template in
            predicateIssue(template.predicate, entity: template.entityName, of: "fetch request '\(template.name)'")
        }
        let fetchedProperties = entities.flatMap { entity in
            entity.fetchedProperties.compactMap { property in
                predicateIssue(property.fetchRequest.predicate, entity: entity.name, of: "fetched property '\(property.name)'")
            }
        }
        return templates + fetchedProperties
    }

    private func predicateIssue(_ format: String?, entity: String, of owner: String) -> ModelIssue? {
        guard let format else { return nil }
        do {
            _ = try ObjectPredicate(format: format)
            return nil
        } catch {
            return ModelIssue(.error, entity: entity, "\(owner): the predicate does not parse: \(error)")
        }
    }
}
