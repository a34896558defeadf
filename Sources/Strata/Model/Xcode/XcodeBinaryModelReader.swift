import Foundation

/// Placeholder until the Xcode 3 binary reader lands.
public enum XcodeBinaryModelReader {
    /// Reads the model in the `elements` file at `url`.
    public static func read(contentsOf url: URL) throws(ModelError) -> ObjectModel {
        throw .unreadable(path: url.path, reason: "an Xcode 3 binary model (elements), which this build cannot read")
    }
}
