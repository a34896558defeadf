import Foundation
@testable import Strata

/// Shorthands the suites use to make and list objects in a context.
extension ObjectContext {
    /// Inserts an object of `entity` with `values`.
    @discardableResult
    func make(_ entity: String, _ values: [String: Any?]) throws -> ManagedObject {
        let object = try insert(entity)
        for (key, value) in values { try object.setValue(value, forKey: key) }
        return object
    }

    /// The objects of `entity` sorted by `key`.
    func all(_ entity: String, by key: String) throws -> [ManagedObject] {
        try fetch(FetchRequest(entityName: entity, sortDescriptors: [ObjectSortDescriptor(key)]))
    }
}
