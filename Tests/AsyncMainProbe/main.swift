// A program with an `async` main, as Vapor's and Hummingbird's are: once main has suspended,
// Linux runs the main queue on a worker thread, where `Thread.isMainThread` is false. Each
// scenario drives one of the context APIs from the main actor and from a detached task, in
// each topology, and checks what the store holds afterwards. `AsyncMainTests` runs it.
//
//     AsyncMainProbe MODEL [SCENARIO…]     (all scenarios without names)
//
// Prints `SCENARIO CALLER TOPOLOGY: ok` per run; a failure prints what went wrong and exits 1.
import Foundation
import Strata

struct ProbeFailure: Error, CustomStringConvertible {
    var description: String
}

/// One way of using the stack, which must leave a tag named `name` in the store.
typealias Scenario = @Sendable (DataStack, _ name: String) async throws -> Void

let scenarios: KeyValuePairs<String, Scenario> = [
    "main-performAndWait-commit": { stack, name in
        try stack.mainContext.performAndWait {
            try stack.mainContext.insert("Tag").setValue(name, forKey: "name")
            try stack.mainContext.commit()
        }
    },
    "worker-performAndWait-commit": { stack, name in
        let worker = stack.newWorkerContext()
        try worker.performAndWait {
            try worker.insert("Tag").setValue(name, forKey: "name")
            try worker.commit()
        }
    },
    "worker-async-perform-commit": { stack, name in
        let worker = stack.newWorkerContext()
        try await worker.perform {
            try worker.insert("Tag").setValue(name, forKey: "name")
            try worker.commit()
        }
    },
    "worker-perform-commit": { stack, name in
        let worker = stack.newWorkerContext()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            worker.perform {
                continuation.resume(with: Result {
                    try worker.insert("Tag").setValue(name, forKey: "name")
                    try worker.commit()
                })
            }
        }
    },
    "worker-inside-main-performAndWait": { stack, name in
        let worker = stack.newWorkerContext()
        try stack.mainContext.performAndWait {
            try worker.performAndWait {
                try worker.insert("Tag").setValue(name, forKey: "name")
                try worker.commit()
            }
            guard try stack.mainContext.count("Tag", where: ObjectPredicate(format: "name == %@", name)) == 1 else {
                throw ProbeFailure(description: "the main context does not see the worker's commit")
            }
        }
    },
    "commit-wait": { stack, name in
        let worker = stack.newWorkerContext()
        try worker.performAndWait { try worker.insert("Tag").setValue(name, forKey: "name") }
        try worker.commit(wait: true)
    },
    "commit-completion": { stack, name in
        let worker = stack.newWorkerContext()
        try worker.performAndWait { try worker.insert("Tag").setValue(name, forKey: "name") }
        let failure: (any Error)? = await withCheckedContinuation { continuation in
            worker.commit { error in continuation.resume(returning: error) }
        }
        if let failure { throw failure }
    },
    "beginUpdateAndWait-use": { stack, name in
        let shown = try stack.mainContext.performAndWait {
            let tag = try stack.mainContext.insert("Tag")
            try tag.setValue("\(name) draft", forKey: "name")
            try stack.mainContext.commit()
            return tag
        }
        try stack.beginUpdateAndWait { update in
            try update.use(shown).setValue(name, forKey: "name")
            try update.commit()
        }
    },
    "beginUpdate-completion": { stack, name in
        let failure: (any Error)? = await withCheckedContinuation { continuation in
            stack.beginUpdate({ update in
                try update.insert("Tag").setValue(name, forKey: "name")
                try update.commit()
            }, completion: { error in continuation.resume(returning: error) })
        }
        if let failure { throw failure }
    },
    "nested-update": { stack, name in
        // CoreDataMonk's pattern: a callback goes back into an update whose block has returned.
        let failure: (any Error)? = await withCheckedContinuation { continuation in
            stack.beginUpdate { update in
                let tag = try update.insert("Tag")
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) {
                    update.perform({ update in
                        try tag.setValue(name, forKey: "name")
                        try update.commit()
                    }, completion: { error in continuation.resume(returning: error) })
                }
            }
        }
        if let failure { throw failure }
    },
    "serial-nested-updateAndWait": { stack, name in
        let failure: (any Error)? = await withCheckedContinuation { continuation in
            stack.beginUpdate({ _ in
                try stack.beginUpdateAndWait { inner in
                    try inner.insert("Tag").setValue(name, forKey: "name")
                    try inner.commit()
                }
            }, completion: { error in continuation.resume(returning: error) })
        }
        if let failure { throw failure }
    },
    "serial-updateAndWait-commit": { stack, name in
        try stack.beginUpdateAndWait { update in
            try update.insert("Tag").setValue(name, forKey: "name")
            try update.commit()
        }
    },
    "save-inBackground": { stack, name in
        try await stack.save(inBackground: { context in
            try context.insert("Tag").setValue(name, forKey: "name")
        })
    },
    "view-context-save": { stack, name in
        let view = stack.newViewContext()
        try view.performAndWait {
            try view.insert("Tag").setValue(name, forKey: "name")
            try view.save()
        }
    },
    "batch-context-save": { stack, name in
        let batch = try stack.newBatchContext()
        try await batch.perform {
            try batch.insert("Tag").setValue(name, forKey: "name")
            try batch.save()
        }
    },
]

/// Runs `scenario` on a new stack and checks that the store, and the main context, hold the
/// tag it saved, once.
func run(_ scenario: Scenario, model: ObjectModel, topology: DataStack.Topology, name: String, folder: URL) async throws {
    var options = DataStack.Options()
    options.topology = topology
    options.runsUpdatesSerially = name.hasPrefix("serial-")
    let url = folder.appendingPathComponent("\(UUID().uuidString).sqlite")
    let stack = try DataStack(model: model, modelName: "Probe", store: .sqlite(url), options: options)
    defer { stack.cleanUp() }
    try await scenario(stack, name)
    let stored = try stack.store.withConnection { try stack.store.rows("Tag") }.compactMap { $0.values["name"]?.stringValue }
    guard stored.filter({ $0 == name }).count == 1 else { throw ProbeFailure(description: "the store holds \(stored)") }
    let seen = try stack.mainContext.performAndWait {
        try stack.mainContext.count("Tag", where: ObjectPredicate(format: "name == %@", name))
    }
    guard seen == 1 else { throw ProbeFailure(description: "the main context counts \(seen) tags named \(name)") }
}

let arguments = CommandLine.arguments.dropFirst()
guard let modelPath = arguments.first else {
    FileHandle.standardError.write(Data("usage: AsyncMainProbe MODEL [SCENARIO…]\n".utf8))
    exit(2)
}
let model = try ModelLoader.load(URL(fileURLWithPath: modelPath)).currentVersion.model
let chosen = arguments.dropFirst().isEmpty ? scenarios.map(\.key) : Array(arguments.dropFirst())
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-async-main-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

// From here on the main queue runs on whichever thread libdispatch gives it.
try await Task.sleep(for: .milliseconds(10))
var failed = false
for scenarioName in chosen {
    guard let scenario = scenarios.first(where: { $0.key == scenarioName })?.value else {
        print("\(scenarioName): no such scenario")
        failed = true
        continue
    }
    for topology in [DataStack.Topology.threeTier, .twoTier] {
        for caller in ["main-actor", "detached"] {
            let label = "\(scenarioName) \(caller) \(topology.rawValue)"
            do {
                if caller == "main-actor" {
                    try await run(scenario, model: model, topology: topology, name: label, folder: folder)
                } else {
                    try await Task.detached {
                        try await run(scenario, model: model, topology: topology, name: label, folder: folder)
                    }.value
                }
                print("\(label): ok")
            } catch {
                print("\(label): \(error)")
                failed = true
            }
        }
    }
}
// exit skips top-level defers: the folder goes first.
try? FileManager.default.removeItem(at: folder)
exit(failed ? 1 : 0)
