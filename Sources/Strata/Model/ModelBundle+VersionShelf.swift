import Foundation

extension ModelBundle {
    /// The versions of one bundle, each read from its file the first time it is asked for, and
    /// kept: a command that uses one version of a bundle of twenty reads one model, not twenty.
    ///
    /// Every copy of a ``ModelBundle`` shares its shelf. Versions are read under a lock, so that
    /// a bundle handed between threads still reads each version once.
    final class VersionShelf: Sendable {
        /// The name and model file of each version, in the bundle's order.
        private let entries: [(name: String, file: URL)]
        /// What reading each entry gave, `nil` until it is read.
        private let readings: Locked<[Result<Version, ModelError>?]>

        /// The names of the versions, in the bundle's order.
        var names: [String] { entries.map(\.name) }

        /// A shelf of versions not read yet, each `name` read from `file` when first asked for.
        init(unread entries: [(name: String, file: URL)]) {
            self.entries = entries
            readings = Locked(Array(repeating: nil, count: entries.count))
        }

        /// A shelf of versions already read: `read`, then `unreadable`.
        init(read: [Version], unreadable: [UnreadableVersion]) {
            entries = read.map { ($0.name, $0.file) } + unreadable.map { ($0.name, $0.file) }
            readings = Locked(read.map { .success($0) } + unreadable.map { .failure($0.error) })
        }

        /// What reading the version named `name` gave, reading it now if it was not read yet;
        /// `nil` when the bundle has no such version.
        func version(named name: String) -> Result<Version, ModelError>? {
            guard let index = entries.firstIndex(where: { $0.name == name }) else { return nil }
            return readings.withLock { reading(at: index, in: &$0) }
        }

        /// Every version, reading those not read yet: those that could be read and those that
        /// could not, each list in the bundle's order.
        func readAll() -> (read: [Version], unreadable: [UnreadableVersion]) {
            readings.withLock { readings in
                var read: [Version] = [], unreadable: [UnreadableVersion] = []
                for index in entries.indices {
                    switch reading(at: index, in: &readings) {
                    case .success(let version): read.append(version)
                    case .failure(let error): unreadable.append(.init(name: entries[index].name, file: entries[index].file, error: error))
                    }
                }
                return (read, unreadable)
            }
        }

        private func reading(at index: Int, in readings: inout [Result<Version, ModelError>?]) -> Result<Version, ModelError> {
            if let reading = readings[index] { return reading }
            let (name, file) = entries[index]
            let reading = Result { () throws(ModelError) in Version(name: name, file: file, model: try ModelLoader.readModel(at: file)) }
            readings[index] = reading
            return reading
        }
    }
}
