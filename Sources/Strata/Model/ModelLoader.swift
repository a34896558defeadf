import Foundation

/// Loads models from the places users keep them: an `.xcdatamodeld` bundle with all its
/// versions, a single `.xcdatamodel` folder, its `contents` file, or a Strata JSON model.
///
/// ```swift
/// let bundle = try ModelLoader.load(URL(fileURLWithPath: "examples/Library/Library.xcdatamodeld"))
/// let model = bundle.currentVersion.model
/// ```
///
/// Loading reads and parses; it does not validate. Call ``ObjectModel/validate()`` (or
/// ``ModelLoader/loadValidated(_:version:)``) before using a model for a store.
public enum ModelLoader {
    /// Loads the model or bundle at `url`.
    ///
    /// Of an `.xcdatamodeld` bundle, the current version is read now and each other version
    /// the first time it is asked for (``ModelBundle/version(named:)``, ``ModelBundle/versions``).
    ///
    /// - Throws: ``ModelError`` when `url` holds no model, or when no version of a bundle can
    ///   be read (the error of its first version).
    public static func load(_ url: URL) throws(ModelError) -> ModelBundle {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw .unreadable(path: url.path, reason: .notFound)
        }
        if isDirectory.boolValue {
            switch url.pathExtension {
            case "xcdatamodeld": return try loadBundle(url)
            case "xcdatamodel": return try single(url, name: url.deletingPathExtension().lastPathComponent, file: modelFile(inVersionFolder: url))
            default:
                let file = modelFile(inVersionFolder: url)
                if FileManager.default.fileExists(atPath: file.path) {
                    return try single(url, name: url.lastPathComponent, file: file)
                }
                let models = modelsInFolder(url)
                if !models.isEmpty { return try loadMerged(models) }
                throw .unreadable(path: url.path, reason: .notAModel)
            }
        }
        if url.pathExtension.lowercased() == "json" {
            return try single(url, name: url.deletingPathExtension().lastPathComponent, file: url)
        }
        let folder = url.deletingLastPathComponent()
        let name = folder.pathExtension == "xcdatamodel" ? folder.deletingPathExtension().lastPathComponent : folder.lastPathComponent
        return try single(url, name: name, file: url)
    }

    /// Loads `url`, picks `version` (the current one when `nil`), and validates it with `check`.
    ///
    /// - Throws: ``ModelError/invalid(path:issues:)`` when validation finds errors.
    public static func loadValidated(
        _ url: URL, version: String? = nil, checkingWith check: (ObjectModel) -> [ModelIssue] = { $0.validate() }
    ) throws(ModelError) -> ValidatedModel {
        try validated(try load(url), version: version, checkingWith: check)
    }

    /// Picks `version` of `bundle` (the current one when `nil`) and validates it with `check`.
    ///
    /// `check` is ``ObjectModel/validate()`` by default, the rules of the model itself; the
    /// layers above pass checks of their own (the store's layout, the predicates of fetch
    /// request templates), which this layer cannot name.
    ///
    /// - Throws: ``ModelError/invalid(path:issues:)`` when validation finds errors.
    public static func validated(
        _ bundle: ModelBundle, version: String? = nil, checkingWith check: (ObjectModel) -> [ModelIssue] = { $0.validate() }
    ) throws(ModelError) -> ValidatedModel {
        let chosen = try bundle.version(named: version)
        let issues = check(chosen.model)
        if issues.contains(where: { $0.severity == .error }) {
            throw .invalid(path: chosen.file.path, issues: issues)
        }
        return ValidatedModel(bundle: bundle, version: chosen, warnings: issues, versionWasNamed: version != nil)
    }

    /// Loads the models at `urls` (each the current version of its bundle, or `version` where
    /// a bundle has a version of that name) merged into one (``ObjectModel/init(merging:names:)``),
    /// for the store of an app whose entities are spread over several model files: a bundle of
    /// one version, named after the models' names joined by " + ".
    ///
    /// - Throws: ``ModelError/unknownVersion(name:bundle:available:)`` when `version` is given
    ///   and no model has it; the error of a model that cannot be read; a merge conflict.
    public static func loadMerged(_ urls: [URL], version: String? = nil) throws(ModelError) -> ModelBundle {
        var versions: [ModelBundle.Version] = []
        for url in urls {
            let bundle = try load(url)
            if let version, let named = bundle.versions.first(where: { $0.name == version }) {
                versions.append(named)
            } else {
                versions.append(try bundle.currentVersion)
            }
        }
        if let version, !versions.contains(where: { $0.name == version }) {
            throw .unknownVersion(name: version, bundle: urls.map(\.path).joined(separator: ", "), available: versions.map(\.name))
        }
        let name = versions.map(\.name).joined(separator: " + ")
        let model = try ObjectModel(merging: versions.map(\.model), names: versions.map(\.file.path))
        return ModelBundle(
            url: urls[0], versions: [.init(name: name, file: versions[0].file, model: model)], currentVersionName: name,
            currentVersionReason: "the models \(urls.map(\.lastPathComponent).joined(separator: ", ")) merged")
    }

    /// The models a plain folder holds: its `.xcdatamodeld` bundles, `.xcdatamodel` folders and
    /// `.json` models, in name order.
    private static func modelsInFolder(_ folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { ["xcdatamodeld", "xcdatamodel", "json"].contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted().map { folder.appendingPathComponent($0) }
    }

    /// Reads one model file, choosing the reader by its name: a `.json` Strata model, an Xcode 3
    /// binary `elements` file, else Xcode's `contents` XML.
    public static func readModel(at file: URL) throws(ModelError) -> ObjectModel {
        if file.pathExtension.lowercased() == "json" { return try JSONModelReader.read(contentsOf: file) }
        if file.lastPathComponent == "elements" { return try XcodeBinaryModelReader.read(contentsOf: file) }
        return try XcodeModelReader.read(contentsOf: file)
    }

    /// The model file of an `.xcdatamodel` folder: its `contents` XML, else the `elements` of
    /// a version Xcode 3 saved (a binary archive beside its `layout`), else the `contents` that
    /// is missing, for the error to name.
    static func modelFile(inVersionFolder folder: URL) -> URL {
        let contents = folder.appendingPathComponent("contents")
        let elements = folder.appendingPathComponent("elements")
        if !FileManager.default.fileExists(atPath: contents.path), FileManager.default.fileExists(atPath: elements.path) {
            return elements
        }
        return contents
    }

    // MARK: - Bundles

    /// `Model 2` for a folder named `Model 2.xcdatamodel`; `nil` for other names.
    private static func versionName(ofFolder folderName: String) -> String? {
        folderName.hasSuffix(".xcdatamodel") ? String(folderName.dropLast(".xcdatamodel".count)) : nil
    }

    private static func single(_ url: URL, name: String, file: URL) throws(ModelError) -> ModelBundle {
        ModelBundle(
            url: url, versions: [.init(name: name, file: file, model: try readModel(at: file))],
            currentVersionName: name, currentVersionReason: "the only version")
    }

    private static func loadBundle(_ url: URL) throws(ModelError) -> ModelBundle {
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw .unreadable(path: url.path, reason: .unlistableBundle(error))
        }
        let names = entries.compactMap(versionName(ofFolder:))
            .sorted { $0.compare($1, options: .numeric) == .orderedAscending }
        guard !names.isEmpty else {
            throw .unreadable(path: url.path, reason: .noVersion)
        }
        // A version that cannot be read fails alone: the others stay usable. Most callers use
        // one version, so the current one is read now and the others when they are asked for;
        // when the current one cannot be read the others are read too, so that a bundle with no
        // readable version fails to load as a whole.
        let shelf = ModelBundle.VersionShelf(unread: names.map { name in
            (name, modelFile(inVersionFolder: url.appendingPathComponent(name + ".xcdatamodel")))
        })
        let marked = Result { () throws(ModelError) in try currentVersion(of: url, names: names) }
        let currentIsReadable = if case .success((let current, _)) = marked, case .success = shelf.version(named: current) { true } else { false }
        if !currentIsReadable {
            let all = shelf.readAll()
            if all.read.isEmpty { throw all.unreadable[0].error }
        }
        let (current, reason) = try marked.get()
        return ModelBundle(url: url, shelf: shelf, currentVersionName: current, currentVersionReason: reason)
    }

    /// The version `.xccurrentversion` names; without that file, or when it names no version
    /// the bundle holds (Xcode leaves an empty `<dict/>` in some bundles), the only or the last
    /// version in name order, with the reason said.
    private static func currentVersion(of bundle: URL, names: [String]) throws(ModelError) -> (String, String) {
        let marker = bundle.appendingPathComponent(".xccurrentversion")
        let fallback = { (why: String) in
            names.count == 1 ? (names[0], "the only version") : (names[names.count - 1], "\(why); chose the last version in name order")
        }
        guard let data = FileManager.default.contents(atPath: marker.path) else {
            return fallback("the bundle has no .xccurrentversion")
        }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, format: nil)
        } catch {
            throw .malformed(path: marker.path, location: nil, message: "not a property list")
        }
        guard let fileName = (plist as? [String: Any])?["_XCCurrentVersionName"] as? String, !fileName.isEmpty else {
            return fallback("the .xccurrentversion names no version")
        }
        let name = versionName(ofFolder: fileName) ?? fileName
        guard names.contains(name) else {
            return fallback("the .xccurrentversion names version '\(name)', which the bundle does not hold")
        }
        return (name, ModelBundle.markedCurrentReason)
    }
}

/// The bytes of the model file at `url`, or an ``ModelError/unreadable(path:reason:)`` error.
func readModelFile(at url: URL) throws(ModelError) -> Data {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
        throw .unreadable(path: url.path, reason: .folder)
    }
    do {
        return try Data(contentsOf: url)
    } catch {
        throw .unreadable(path: url.path, reason: .unreadableFile(error))
    }
}
