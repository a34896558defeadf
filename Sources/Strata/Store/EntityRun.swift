/// Rows of one entity that a save writes one after another: a save of many objects of one
/// entity is one run, so that what is done once per entity (a table's keys allocated, its
/// history triggers weighed) is done once per run rather than once per row.
struct EntityRun {
    var entityName: String
    var count: Int

    /// The runs of `ids` in order: each change of entity (or of store: of ``ObjectID``'s scope)
    /// starts a new run.
    static func runs(of ids: some Sequence<ObjectID>) -> [EntityRun] {
        var runs: [EntityRun] = []
        // The run under way is counted here and appended when it ends; scopes are compared by
        // identity without taking a reference to each, which retained and released it per row.
        var current: (scope: ObjectIdentifier, run: EntityRun)?
        for id in ids {
            let scope = ObjectIdentifier(id.scope)
            if current?.scope == scope {
                current!.run.count += 1
            } else {
                if let current { runs.append(current.run) }
                current = (scope, EntityRun(entityName: id.entityName, count: 1))
            }
        }
        if let current { runs.append(current.run) }
        return runs
    }
}
