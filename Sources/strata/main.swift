import Foundation
import StrataCLI

exit(await StrataCLI.main())
