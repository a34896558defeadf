import Foundation

/// Saves of other processes (Core Data's remote change notification): see
/// ``DataStack/Options/remoteChangePollInterval``.
extension DataStack {
    /// Posted on `NotificationCenter.default` when the stack finds that another connection
    /// (another process) saved the store, after its contexts merged the save: Core Data's
    /// `NSPersistentStoreRemoteChange`, under the same name. The object is the stack; the user
    /// info holds the store's UUID under ``storeUUIDKey`` and, for a store that keeps
    /// persistent history, the token of its last transaction under ``historyTokenKey``.
    ///
    /// ```swift
    /// var options = DataStack.Options()
    /// options.remoteChangePollInterval = .seconds(1)
    /// let stack = try DataStack(model: model, store: .sqlite(url), options: options)
    /// let observer = NotificationCenter.default.addObserver(
    ///     forName: DataStack.remoteChangeNotification, object: stack, queue: nil) { note in
    ///     print("saved elsewhere, up to", note.userInfo?[DataStack.historyTokenKey] ?? "?")
    /// }
    /// ```
    public static let remoteChangeNotification = Notification.Name("NSPersistentStoreRemoteChangeNotification")
    /// The user-info key of the store's UUID in ``remoteChangeNotification`` (Core Data's `NSStoreUUIDKey`).
    public static let storeUUIDKey = "storeUUID"
    /// The user-info key of the ``PersistentHistoryToken`` in ``remoteChangeNotification``
    /// (Core Data's `NSPersistentHistoryTokenKey`).
    public static let historyTokenKey = "historyToken"

    /// Looks for other connections' saves every `interval`, on a queue of its own.
    func startPollingRemoteChanges(every interval: Duration) {
        // The first look at the store only notes where it stands: taken now, so that the
        // first save found is merged.
        rootContext.performAndWait { rootContext.noteExternalDataVersion() }
        _ = checkForRemoteChanges()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "strata.stack.remote-changes"))
        let nanoseconds = max(1_000_000, Int(interval.components.seconds) * 1_000_000_000 + Int(interval.components.attoseconds / 1_000_000_000))
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        timer.setEventHandler { [weak self] in self?.checkForRemoteChanges() }
        remoteChanges.withLock { $0.timer = timer }
        timer.resume()
    }

    /// Looks whether other connections saved since the last look; if they did, the main
    /// context merges their saves on its queue, then ``remoteChangeNotification`` is posted.
    /// Returns whether they saved. The stack calls it every ``Options/remoteChangePollInterval``.
    @discardableResult
    public func checkForRemoteChanges() -> Bool {
        let store = self.store
        guard let version = try? store.withConnection({ try store.database.scalar("PRAGMA data_version")?.int64Value }) else { return false }
        let changed = remoteChanges.withLock { state -> Bool in
            defer { state.dataVersion = version }
            return state.dataVersion != nil && state.dataVersion != version
        }
        guard changed else { return false }
        let (main, uuid, token) = (mainContext, store.metadata.uuid, try? store.currentHistoryToken())
        main.perform { [weak self] in
            _ = try? main.mergeExternalChanges()
            var userInfo: [String: any Sendable] = [Self.storeUUIDKey: uuid]
            if let token { userInfo[Self.historyTokenKey] = token }
            NotificationCenter.default.post(name: Self.remoteChangeNotification, object: self, userInfo: userInfo)
        }
        return true
    }
}
