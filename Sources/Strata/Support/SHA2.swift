import Foundation

// SHA-256 and SHA-512 as FIPS 180-4 defines them, on the bytes in memory. Core Data's version
// hashes and the store's checksum and digest keys are built on them. They were the system's
// libcrypto (OpenSSL) until issue 35: loading libcrypto and setting OpenSSL up on the first
// digest (its configuration file, its providers, a look-up of the algorithm on every call)
// cost about 3 ms of every `strata` command that opens a store, where the hashes of a whole
// model take microseconds. The constants are the first 32 (SHA-256) or 64 (SHA-512) bits of
// the fractional parts of the square roots (initial values) and cube roots (round constants)
// of the first primes (FIPS 180-4, sections 4.2 and 5.3); the standard's examples ("abc",
// the 448- and 896-bit messages, a million "a") are in SHA2Tests.

/// Computes SHA-256 digests, as used by Core Data's model version hashes.
///
/// ```swift
/// let digest = SHA256.hash(Data("abc".utf8))   // 32 bytes
/// ```
package enum SHA256 {
    /// The 32-byte SHA-256 digest of `data`.
    package static func hash(_ data: Data) -> Data {
        var state = initialState
        SHA2Blocks.forEach(of: data, blockSize: 64) { compress(&state, $0) }
        return SHA2Blocks.bigEndianBytes(of: state)
    }

    /// One block of 64 bytes into `state` (FIPS 180-4, section 6.2.2).
    private static func compress(_ state: inout [UInt32], _ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            for index in 0..<16 {
                schedule[index] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
            }
            for index in 16..<64 {
                let (early, late) = (schedule[index - 15], schedule[index - 2])
                let sigma0 = early.rotatedRight(7) ^ early.rotatedRight(18) ^ (early >> 3)
                let sigma1 = late.rotatedRight(17) ^ late.rotatedRight(19) ^ (late >> 10)
                schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
            }
            var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
            for index in 0..<64 {
                let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                let choice = (e & f) ^ (~e & g)
                let first = h &+ sum1 &+ choice &+ roundConstants[index] &+ schedule[index]
                let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                (h, g, f, e, d, c, b, a) = (g, f, e, d &+ first, c, b, a, first &+ sum0 &+ majority)
            }
            for (index, value) in [a, b, c, d, e, f, g, h].enumerated() { state[index] &+= value }
        }
    }

    private static let initialState: [UInt32] = [
        0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
    ]

    private static let roundConstants: [UInt32] = [
        0x428A2F98, 0x71374491, 0xB5C0FBCF, 0xE9B5DBA5, 0x3956C25B, 0x59F111F1, 0x923F82A4, 0xAB1C5ED5,
        0xD807AA98, 0x12835B01, 0x243185BE, 0x550C7DC3, 0x72BE5D74, 0x80DEB1FE, 0x9BDC06A7, 0xC19BF174,
        0xE49B69C1, 0xEFBE4786, 0x0FC19DC6, 0x240CA1CC, 0x2DE92C6F, 0x4A7484AA, 0x5CB0A9DC, 0x76F988DA,
        0x983E5152, 0xA831C66D, 0xB00327C8, 0xBF597FC7, 0xC6E00BF3, 0xD5A79147, 0x06CA6351, 0x14292967,
        0x27B70A85, 0x2E1B2138, 0x4D2C6DFC, 0x53380D13, 0x650A7354, 0x766A0ABB, 0x81C2C92E, 0x92722C85,
        0xA2BFE8A1, 0xA81A664B, 0xC24B8B70, 0xC76C51A3, 0xD192E819, 0xD6990624, 0xF40E3585, 0x106AA070,
        0x19A4C116, 0x1E376C08, 0x2748774C, 0x34B0BCB5, 0x391C0CB3, 0x4ED8AA4A, 0x5B9CCA4F, 0x682E6FF3,
        0x748F82EE, 0x78A5636F, 0x84C87814, 0x8CC70208, 0x90BEFFFA, 0xA4506CEB, 0xBEF9A3F7, 0xC67178F2,
    ]
}

/// Computes SHA-512 digests, as used by the store metadata's `NSStoreModelVersionHashesDigest`.
package enum SHA512 {
    /// The 64-byte SHA-512 digest of `data`.
    package static func hash(_ data: Data) -> Data {
        var state = initialState
        SHA2Blocks.forEach(of: data, blockSize: 128) { compress(&state, $0) }
        return SHA2Blocks.bigEndianBytes(of: state)
    }

    /// One block of 128 bytes into `state` (FIPS 180-4, section 6.4.2).
    private static func compress(_ state: inout [UInt64], _ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 80) { schedule in
            for index in 0..<16 {
                schedule[index] = UInt64(bigEndian: block.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
            }
            for index in 16..<80 {
                let (early, late) = (schedule[index - 15], schedule[index - 2])
                let sigma0 = early.rotatedRight(1) ^ early.rotatedRight(8) ^ (early >> 7)
                let sigma1 = late.rotatedRight(19) ^ late.rotatedRight(61) ^ (late >> 6)
                schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
            }
            var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
            for index in 0..<80 {
                let sum1 = e.rotatedRight(14) ^ e.rotatedRight(18) ^ e.rotatedRight(41)
                let choice = (e & f) ^ (~e & g)
                let first = h &+ sum1 &+ choice &+ roundConstants[index] &+ schedule[index]
                let sum0 = a.rotatedRight(28) ^ a.rotatedRight(34) ^ a.rotatedRight(39)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                (h, g, f, e, d, c, b, a) = (g, f, e, d &+ first, c, b, a, first &+ sum0 &+ majority)
            }
            for (index, value) in [a, b, c, d, e, f, g, h].enumerated() { state[index] &+= value }
        }
    }

    private static let initialState: [UInt64] = [
        0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1,
        0x510E527FADE682D1, 0x9B05688C2B3E6C1F, 0x1F83D9ABFB41BD6B, 0x5BE0CD19137E2179,
    ]

    private static let roundConstants: [UInt64] = [
        0x428A2F98D728AE22, 0x7137449123EF65CD, 0xB5C0FBCFEC4D3B2F, 0xE9B5DBA58189DBBC,
        0x3956C25BF348B538, 0x59F111F1B605D019, 0x923F82A4AF194F9B, 0xAB1C5ED5DA6D8118,
        0xD807AA98A3030242, 0x12835B0145706FBE, 0x243185BE4EE4B28C, 0x550C7DC3D5FFB4E2,
        0x72BE5D74F27B896F, 0x80DEB1FE3B1696B1, 0x9BDC06A725C71235, 0xC19BF174CF692694,
        0xE49B69C19EF14AD2, 0xEFBE4786384F25E3, 0x0FC19DC68B8CD5B5, 0x240CA1CC77AC9C65,
        0x2DE92C6F592B0275, 0x4A7484AA6EA6E483, 0x5CB0A9DCBD41FBD4, 0x76F988DA831153B5,
        0x983E5152EE66DFAB, 0xA831C66D2DB43210, 0xB00327C898FB213F, 0xBF597FC7BEEF0EE4,
        0xC6E00BF33DA88FC2, 0xD5A79147930AA725, 0x06CA6351E003826F, 0x142929670A0E6E70,
        0x27B70A8546D22FFC, 0x2E1B21385C26C926, 0x4D2C6DFC5AC42AED, 0x53380D139D95B3DF,
        0x650A73548BAF63DE, 0x766A0ABB3C77B2A8, 0x81C2C92E47EDAEE6, 0x92722C851482353B,
        0xA2BFE8A14CF10364, 0xA81A664BBC423001, 0xC24B8B70D0F89791, 0xC76C51A30654BE30,
        0xD192E819D6EF5218, 0xD69906245565A910, 0xF40E35855771202A, 0x106AA07032BBD1B8,
        0x19A4C116B8D2D0C8, 0x1E376C085141AB53, 0x2748774CDF8EEB99, 0x34B0BCB5E19B48A8,
        0x391C0CB3C5C95A63, 0x4ED8AA4AE3418ACB, 0x5B9CCA4F7763E373, 0x682E6FF3D6B2B8A3,
        0x748F82EE5DEFB2FC, 0x78A5636F43172F60, 0x84C87814A1F0AB72, 0x8CC702081A6439EC,
        0x90BEFFFA23631E28, 0xA4506CEBDE82BDE9, 0xBEF9A3F7B2C67915, 0xC67178F2E372532B,
        0xCA273ECEEA26619C, 0xD186B8C721C0C207, 0xEADA7DD6CDE0EB1E, 0xF57D4F7FEE6ED178,
        0x06F067AA72176FBA, 0x0A637DC5A2C898A6, 0x113F9804BEF90DAE, 0x1B710B35131C471B,
        0x28DB77F523047D84, 0x32CAAB7B40C72493, 0x3C9EBE0A15C9BEBC, 0x431D67C49C100D4C,
        0x4CC5D4BECB3E42B6, 0x597F299CFC657E2A, 0x5FCB6FAB3AD6FAEC, 0x6C44198C4A475817,
    ]
}

/// The message schedule both digests share: whole blocks straight from the message, then the
/// padding (FIPS 180-4, section 5.1), and the state written out big-endian.
private enum SHA2Blocks {
    /// Calls `body` with each block of `data` followed by its padding: a 1 bit, zeros, and the
    /// message's length in bits big-endian in the last 8 bytes (SHA-256's 64-bit field; SHA-512's
    /// field is 128 bits, whose upper half is 0 for any message in memory).
    static func forEach(of data: Data, blockSize: Int, _ body: (UnsafeRawBufferPointer) -> Void) {
        data.withUnsafeBytes { message in
            let whole = message.count / blockSize * blockSize
            for start in stride(from: 0, to: whole, by: blockSize) {
                body(UnsafeRawBufferPointer(rebasing: message[start..<(start + blockSize)]))
            }
            // The rest, the 1 bit and the length field take one block, or two when the rest
            // leaves no room for them.
            let rest = message.count - whole
            let lengthField = blockSize / 8
            var tail = [UInt8](repeating: 0, count: rest + 1 + lengthField <= blockSize ? blockSize : 2 * blockSize)
            for index in 0..<rest { tail[index] = message[whole + index] }
            tail[rest] = 0x80
            var bits = UInt64(message.count) &* 8
            for index in (tail.count - 8..<tail.count).reversed() {
                tail[index] = UInt8(truncatingIfNeeded: bits)
                bits >>= 8
            }
            tail.withUnsafeBytes { padded in
                for start in stride(from: 0, to: padded.count, by: blockSize) {
                    body(UnsafeRawBufferPointer(rebasing: padded[start..<(start + blockSize)]))
                }
            }
        }
    }

    static func bigEndianBytes<Word: FixedWidthInteger>(of state: [Word]) -> Data {
        var bytes = Data(capacity: state.count * Word.bitWidth / 8)
        for word in state {
            withUnsafeBytes(of: word.bigEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }
}

// `ROTR` in FIPS 180-4: the bits rotated `count` places to the right. One for each word size
// rather than one generic, which a debug build (the tests') would call through witness tables.
extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { (self &>> count) | (self &<< (32 &- count)) }
}

extension UInt64 {
    fileprivate func rotatedRight(_ count: UInt64) -> UInt64 { (self &>> count) | (self &<< (64 &- count)) }
}

extension Data {
    /// The bytes as lower-case hexadecimal, two digits a byte.
    package var hexString: String {
        map { String(format: "%02x", $0) }.joined()
    }
}
