/// What happens to the objects at the other end of a relationship when its source is deleted.
public enum DeleteRule: String, Sendable, CaseIterable {
    /// The destination's inverse is cleared.
    case nullify = "Nullify"
    /// The destination objects are deleted too.
    case cascade = "Cascade"
    /// The delete fails while the relationship holds any object.
    case deny = "Deny"
    /// Nothing is done; the destination may keep a dangling reference.
    case noAction = "No Action"

    /// The rule of Core Data's `NSDeleteRule` number (0 no action, 1 nullify, 2 cascade,
    /// 3 deny), as archived models hold it; `nil` for another number.
    public init?(code: Int64) {
        switch code {
        case 0: self = .noAction
        case 1: self = .nullify
        case 2: self = .cascade
        case 3: self = .deny
        default: return nil
        }
    }

    /// Core Data's `NSDeleteRule` number of the rule, the inverse of ``init(code:)``.
    var code: Int64 {
        switch self {
        case .noAction: 0
        case .nullify: 1
        case .cascade: 2
        case .deny: 3
        }
    }

    /// The name in Strata's JSON model format (`nullify`, `cascade`, `deny`, `noAction`).
    public var jsonName: String {
        switch self {
        case .nullify: "nullify"
        case .cascade: "cascade"
        case .deny: "deny"
        case .noAction: "noAction"
        }
    }
}
