import CCrypto
import Foundation

// SHA-256 and SHA-512 come from the system's libcrypto (OpenSSL), linked through the CCrypto
// system-library target as SQLite and zlib are. Core Data's version hashes and the store's
// checksum and digest keys are built on them.

/// Computes SHA-256 digests, as used by Core Data's model version hashes.
///
/// ```swift
/// let digest = SHA256.hash(Data("abc".utf8))   // 32 bytes
/// ```
package enum SHA256 {
    /// The 32-byte SHA-256 digest of `data`.
    package static func hash(_ data: Data) -> Data {
        digest(of: data, with: EVP_sha256())
    }
}

/// Computes SHA-512 digests, as used by the store metadata's `NSStoreModelVersionHashesDigest`.
package enum SHA512 {
    /// The 64-byte SHA-512 digest of `data`.
    package static func hash(_ data: Data) -> Data {
        digest(of: data, with: EVP_sha512())
    }
}

/// The digest of `data` by libcrypto's one-call `EVP_Digest`. It fails only when the library
/// cannot allocate its context or the algorithm is missing from the build, neither of which a
/// caller can recover from, so a failure stops the program rather than yield a wrong hash.
private func digest(of data: Data, with algorithm: OpaquePointer?) -> Data {
    var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    let succeeded = data.withUnsafeBytes { input in
        EVP_Digest(input.baseAddress, input.count, &output, &length, algorithm, nil) == 1
    }
    precondition(succeeded, "libcrypto could not compute a digest")
    return Data(output.prefix(Int(length)))
}

extension Data {
    /// The bytes as lower-case hexadecimal, two digits a byte.
    package var hexString: String {
        map { String(format: "%02x", $0) }.joined()
    }
}
