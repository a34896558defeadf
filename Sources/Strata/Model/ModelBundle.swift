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

    /// A version whose file could not be read, kept with the reason: one damaged or unknown
    /// version does not keep the others from loading.
    public struct UnreadableVersion: Sendable {
        /// The version's name, as ``Version/name``.
        public var name: String
        /// The version's model file, or its folder when it holds none Strata knows.
        public var file: URL
        /// Why it could not be read.
        public var error: ModelError

        /// A version named `name` that could not be read from `file`, because of `error`.
        public init(name: String, file: URL, error: ModelError) {
            self.name = name
            self.file = file
            self.error = error
        }
    }

    /// Where the bundle was loaded from.
    public var url: URL
    /// The name of the version that new stores use.
    public var currentVersionName: String
    /// Why that version is current, in words for a user.
    public var currentVersionReason: String
    /// The versions, read when first asked for: the same for every copy of the bundle.
    private let shelf: VersionShelf

    /// The ``currentVersionReason`` of a bundle whose `.xccurrentversion` names its current version.
    public static let markedCurrentReason = "named by .xccurrentversion"

    /// A bundle of `versions`, which must not be empty, and of `unreadableVersions`.
    public init(
        url: URL, versions: [Version], unreadableVersions: [UnreadableVersion] = [], currentVersionName: String,
        currentVersionReason: String
    ) {
        precondition(!versions.isEmpty, "a model bundle has at least one readable version")
        self.init(url: url, shelf: VersionShelf(read: versions, unreadable: unreadableVersions),
                  currentVersionName: currentVersionName, currentVersionReason: currentVersionReason)
    }

    init(url: URL, shelf: VersionShelf, currentVersionName: String, currentVersionReason: String) {
        self.url = url
        self.shelf = shelf
        self.currentVersionName = currentVersionName
        self.currentVersionReason = currentVersionReason
    }

    /// The names of all the bundle's versions, readable or not, in the order of ``versions``;
    /// listing them reads no model.
    public var versionNames: [String] { shelf.names }

    /// The versions that could be read, in name order with numbers compared by value (`Model`,
    /// `Model 2`, `Model 10`).
    ///
    /// A bundle loaded from disk reads its versions when they are first asked for: this reads
    /// every one not read yet. To use one version, ask for it by name (``version(named:)``),
    /// which reads that one alone.
    public var versions: [Version] { shelf.readAll().read }

    /// The versions that could not be read, in the same order; asking for one by name (or for
    /// the current version, when it is one) throws its error. Like ``versions``, this reads
    /// every version not read yet.
    public var unreadableVersions: [UnreadableVersion] { shelf.readAll().unreadable }

    /// The current version.
    ///
    /// - Throws: the version's error when it could not be read.
    public var currentVersion: Version {
        get throws(ModelError) { try version(named: currentVersionName) }
    }

    /// The version named `name`, or the current one when `name` is `nil`; of a bundle loaded
    /// from disk, only that version is read (once).
    ///
    /// - Throws: ``ModelError/unknownVersion(name:bundle:available:)`` when the bundle has no
    ///   such version, or the version's own error when it could not be read.
    public func version(named name: String?) throws(ModelError) -> Version {
        let name = name ?? currentVersionName
        guard let version = shelf.version(named: name) else {
            throw .unknownVersion(name: name, bundle: url.path, available: versionNames.sorted {
                $0.compare($1, options: .numeric) == .orderedAscending
            })
        }
        return try version.get()
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
