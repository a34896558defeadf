/// How an import finds the object a record stands for: DKDBManager's and Sync's choices.
public enum ImportIdentity: Sendable, Equatable {
    /// The object whose attribute of this name holds the record's value; a new one when none
    /// does. `ignoringCase`, string values match whatever their case (DKDBManager's `==[c]`
    /// primary predicates): `"Le Guin"` finds the object saved as `"le guin"`.
    case attribute(String, ignoringCase: Bool = false)
    /// The entity holds one object, which every record updates (DKDBManager without a primary key).
    case singleton
    /// Every record makes a new object.
    case neverMatch
}

extension ImportIdentity {
    /// The identity the model's conventions give `entity`, the first that applies:
    /// 1. entity userInfo `relatedByAttribute` (MagicalRecord);
    /// 2. an attribute whose userInfo sets `hyper.isPrimaryKey` or `sync.isPrimaryKey` (Sync);
    /// 3. a uniqueness constraint on one attribute;
    /// 4. an attribute named `remoteID` (Sync's default, fed by the JSON key `id`);
    /// 5. `<entity>ID` with a lower-case first letter (`bookID`, MagicalRecord's default);
    /// 6. an attribute named `id`.
    /// Without any, records always make new objects. Entity userInfo `strata.identityIgnoresCase`
    /// = `YES` makes string identity values match whatever their case.
    ///
    /// ```swift
    /// ImportIdentity.conventional(for: note, in: model)   // .attribute("noteID") for Sync's Note
    /// ```
    public static func conventional(for entity: EntityDescription, in model: ObjectModel) -> ImportIdentity {
        let ignoringCase = entity.userInfo["strata.identityIgnoresCase"].map(ObjectModel.isYes) ?? false
        guard let name = conventionalAttribute(for: entity, in: model) else { return .neverMatch }
        return .attribute(name, ignoringCase: ignoringCase)
    }

    private static func conventionalAttribute(for entity: EntityDescription, in model: ObjectModel) -> String? {
        let attributes = model.allAttributes(of: entity).filter { !$0.isTransient && !$0.isDerived }
        let names = Set(attributes.map(\.name))
        if let related = entity.userInfo["relatedByAttribute"], names.contains(related) { return related }
        if let marked = attributes.first(where: { attribute in
            ["hyper.isPrimaryKey", "sync.isPrimaryKey"].contains { attribute.userInfo[$0].map(ObjectModel.isYes) == true }
        }) {
            return marked.name
        }
        if let unique = (model.ancestors(of: entity).flatMap(\.uniquenessConstraints) + entity.uniquenessConstraints)
            .first(where: { $0.count == 1 && names.contains($0[0]) })
        {
            return unique[0]
        }
        let entityID = entity.name.prefix(1).lowercased() + entity.name.dropFirst() + "ID"
        for candidate in ["remoteID", entityID, "id"] where names.contains(candidate) { return candidate }
        return nil
    }
}
