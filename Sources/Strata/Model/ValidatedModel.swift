/// A model version that passed validation, with the bundle it came from and the warnings
/// validation found.
public struct ValidatedModel: Sendable {
    /// The bundle the model was loaded from, with all its versions.
    public var bundle: ModelBundle
    /// The version that was validated: the one asked for by name, or the bundle's current one.
    public var version: ModelBundle.Version
    /// The warnings validation found; a validated model has no errors.
    public var warnings: [ModelIssue]
    /// Whether the caller named the version, rather than taking the bundle's current one.
    public var versionWasNamed: Bool

    /// Whether the version was chosen by a guess (a bundle of several versions without
    /// `.xccurrentversion`) rather than by name or by the bundle's marker.
    public var versionWasGuessed: Bool {
        !versionWasNamed && bundle.versionNames.count > 1 && bundle.currentVersionReason != ModelBundle.markedCurrentReason
    }
}
