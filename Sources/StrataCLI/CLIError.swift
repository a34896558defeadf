/// An error a command reports to the user, with the exit status it ends in.
struct CLIError: Error {
    var message: String
    var status: ExitStatus

    init(_ message: String, status: ExitStatus = .failure) {
        self.message = message
        self.status = status
    }
}
