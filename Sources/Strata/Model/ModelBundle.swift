import Foundation

/// The versions of a model, as an `.xcdatamodeld` bundle holds them, and which one is current.
///
/// A single `.xcdatamodel`, a `contents` file or a JSON model loads as a bundle of one version.
///
/// ```swift
/// let bundle = try ModelLoader.load(URL(fileURLWithPath: "Library.xcdatamodeld"))
/// bundle.currentVersion.name     // "Library 2"
/// bundle.currentVersionReason    // "named by .xccurrentversion"
/// ```
public struct ModelBundle: Sendable {
    /// One version of a bundle: its name (the folder name without `.xcdatamodel`), its file and
    /// its model.
    public struct Version: Sendable {
        /// The version's name: the `.xcdatamodel` folder's name, or a JSON model's file name, without
        /// the extension.
        public var name: String
        /// The file the model was read from (`…/Name.xcdatamodel/contents` or a `.json` file).
        public var file: URL
        /// The model the version holds, as read; loading does not validate it.
        public var model: ObjectModel

        /// A version named `name` holding `model`, read from `file`.
        public init(name: String, file: URL, model: ObjectModel) {
            self.name = name
            self.file = file
            self.model = model
        }
    }

    /// Where the bundle was loaded from.
    public var url: URL
    /// The versions, in name order with numbers compared by value (`Model`, `Model 2`, `Model 10`).
    public var versions: [Version]
    /// The name of the version that new stores use.
    public var currentVersionName: String
    /// Why that version is current, in words for a user.
    public var currentVersionReason: String

    /// The ``currentVersionReason`` of a bundle whose `.xccurrentversion` names its current version.
    public static let markedCurrentReason = "named by .xccurrentversion"

    /// A bundle of `versions`, which must not be empty.
    public init(url: URL, versions: [Version], currentVersionName: String, currentVersionReason: String) {
        precondition(!versions.isEmpty, "a model bundle has at least one version")
        self.url = url
        self.versions = versions
        self.currentVersionName = currentVersionName
        self.currentVersionReason = currentVersionReason
    }

    /// The current version.
    public var currentVersion: Version {
        versions.first { $0.name == currentVersionName } ?? versions[versions.count - 1]
    }

    /// The version named `name`, or the current one when `name` is `nil`.
    public func version(named name: String?) throws(ModelError) -> Version {
        guard let name else { return currentVersion }
        guard let version = versions.first(where: { $0.name == name }) else {
            throw .unknownVersion(name: name, bundle: url.path, available: versions.map(\.name))
        }
        return version
    }
}

extension ModelBundle {
    /// Writes `.xccurrentversion` into a bundle folder at `url`, naming `versionName` current.
    public static func writeCurrentVersionMarker(in url: URL, versionName: String) throws {
        let plist = ["_XCCurrentVersionName": versionName + ".xcdatamodel"]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        try data.write(to: url.appendingPathComponent(".xccurrentversion"), options: .atomic)
    }
}
