/// A model version that passed validation, with the bundle it came from and the warnings
/// validation found.
public struct ValidatedModel: Sendable {
    public var bundle: ModelBundle
    public var version: ModelBundle.Version
    public var warnings: [ModelIssue]

    /// Whether the version was chosen by a guess (a bundle of several versions without
    /// `.xccurrentversion`) rather than by name or by the bundle's marker.
    public var versionWasGuessed: Bool {
        bundle.versions.count > 1 && bundle.currentVersionReason != ModelBundle.markedCurrentReason
            && version.name == bundle.currentVersionName
    }
}
