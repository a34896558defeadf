import Foundation
import Testing
@testable import Strata

@Suite struct UpdateContextTests {
    static func stack(serial: Bool = false) throws -> DataStack {
        var options = DataStack.Options()
        options.runsUpdatesSerially = serial
        let stack = try DataStack(model: ModelLoader.load(Fixtures.exampleModel).currentVersion.model, store: .inMemory, options: options)
        stack.register([Author.self, Book.self, EBook.self, Page.self, Tag.self])
        return stack
    }

    private func tagNames(_ stack: DataStack) throws -> [String] {
        try stack.store.withConnection { try stack.store.rows("Tag").compactMap { $0.values["name"]?.stringValue } }.sorted()
    }

    @Test func onlyCommittedUpdatesReachTheStore() throws {
        let stack = try Self.stack()
        try stack.beginUpdateAndWait { update in
            try update.insert("Tag").setValue("committed", forKey: "name")
            try update.commit()
            try update.insert("Tag").setValue("forgotten", forKey: "name")
        }
        try stack.beginUpdateAndWait { update in
            try update.insert("Tag").setValue("never committed", forKey: "name")
        }
        #expect(try tagNames(stack) == ["committed"])
    }

    @Test func useBringsAnObjectFromAnotherContext() throws {
        let stack = try Self.stack()
        let tag = try stack.rootContext.performAndWait {
            let tag = try Tag(context: stack.rootContext)
            tag.name = "before"
            try stack.rootContext.save()
            return tag
        }
        try stack.beginUpdateAndWait { update in
            let own = try update.use(tag)
            #expect(own !== tag)
            own.name = "after"
            try update.commit()
        }
        #expect(try tagNames(stack) == ["after"])
    }

    @Test func aMultiStepUpdateCommitsWhenToldAndReportsErrors() async throws {
        let stack = try Self.stack()
        let update = stack.beginUpdateContext()
        try update.perform { try update.insert("Tag").setValue("step one", forKey: "name") }
        try update.perform { try update.insert("Tag").setValue("step two", forKey: "name") }
        #expect(try tagNames(stack).isEmpty)
        try update.perform { try update.commit() }
        #expect(try tagNames(stack) == ["step one", "step two"])
        let failure: String = await withCheckedContinuation { continuation in
            stack.beginUpdate({ update in
                try update.insert("Tag")
                try update.commit()
            }, completion: { error in continuation.resume(returning: String(describing: error)) })
        }
        #expect(failure.contains("name: is required"))
    }

    @Test func serialUpdatesRunInTheOrderTheyStarted() async throws {
        let stack = try Self.stack(serial: true)
        let order = Locked<[Int]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let remaining = Locked(20)
            for index in 0..<20 {
                stack.beginUpdate({ update in
                    order.withLock { $0.append(index) }
                    try update.insert("Tag").setValue("u\(index)", forKey: "name")
                    try update.commit()
                }, completion: { _ in
                    if remaining.withLock({ $0 -= 1; return $0 }) == 0 { done.resume() }
                })
            }
        }
        #expect(order.withLock { $0 } == Array(0..<20))
        #expect(try tagNames(stack).count == 20)
    }

    @Test func viewContextsSaveToTheStoreAndMergeOtherCommits() async throws {
        let stack = try Self.stack()
        let id = try await stack.background { context in
            let tag = try Tag(context: context)
            tag.name = "shared"
            try context.commit()
            return tag.objectID
        }
        let (first, second) = await MainActor.run { (stack.newViewContext(name: "first"), stack.newViewContext(name: "second")) }
        try await MainActor.run {
            #expect((try second.existingObject(with: id) as? Tag)?.name == "shared")
            let tag = try #require(try first.existingObject(with: id) as? Tag)
            tag.name = "renamed in the first view"
            try first.save()
        }
        await MainActor.run {}
        let seen = await MainActor.run { (second.object(with: id) as? Tag)?.name }
        #expect(seen == "renamed in the first view")
        #expect(try tagNames(stack) == ["renamed in the first view"])
    }
}
