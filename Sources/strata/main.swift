import Foundation
import StrataCLI

// A command that does not await runs before the first `await`, on the main thread, without
// starting libdispatch's threads.
switch StrataCLI.start() {
case .finished(let status): exit(status)
case .needsConcurrency(let command): exit(await command.run())
}
