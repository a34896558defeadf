import Foundation

// Files that live beside the database and follow its transactions: a file written for a row
// (external binary data) must be gone if the transaction that wrote the row rolls back, and a
// file a row no longer refers to may only go once that change has committed. The file is
// always on disk before the row that names it, so that no crash leaves a row pointing at a
// missing file (a crash may leave a file no row names, which takes room and nothing else).

/// The files a connection's transaction under way has written, and those it has let go.
final class TransactionFiles {
    /// Written for the transaction: removed if it rolls back.
    var written: [String] = []
    /// No longer referred to once it commits: removed then.
    var released: [String] = []
}

extension Database {
    /// Records that `file` was written for the transaction under way, to be removed if it rolls
    /// back. Outside a transaction the write it belongs to commits by itself, and nothing is kept.
    func removeOnRollback(_ file: String) {
        guard isInTransaction else { return }
        transactionFiles.written.append(file)
    }

    /// Records that the transaction under way lets `file` go: it is removed once the
    /// transaction commits, and stays if it rolls back.
    func removeAfterCommit(_ file: String) {
        transactionFiles.released.append(file)
    }

    /// How many files the transaction has recorded so far, to undo what a savepoint recorded.
    var transactionFileMarks: (written: Int, released: Int) {
        (transactionFiles.written.count, transactionFiles.released.count)
    }

    /// After a commit: the released files go; nothing is pending any more.
    func transactionDidCommit() {
        let released = transactionFiles.released
        transactionFiles.written = []
        transactionFiles.released = []
        for file in released { try? FileManager.default.removeItem(atPath: file) }
    }

    /// After a rollback to `marks` (a savepoint's; the start, for the whole transaction): the
    /// files written since go, and those released since are kept.
    func transactionDidRollBack(to marks: (written: Int, released: Int) = (0, 0)) {
        let files = transactionFiles
        guard files.written.count > marks.written || files.released.count > marks.released else { return }
        let written = files.written[marks.written...]
        files.written.removeSubrange(marks.written...)
        files.released.removeSubrange(min(marks.released, files.released.count)...)
        for file in written { try? FileManager.default.removeItem(atPath: file) }
    }
}
