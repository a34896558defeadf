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
        var scope: ObjectIDScope?
        for id in ids {
            if id.scope === scope {
                runs[runs.count - 1].count += 1
            } else {
                scope = id.scope
                runs.append(EntityRun(entityName: id.entityName, count: 1))
            }
        }
        return runs
    }
}
