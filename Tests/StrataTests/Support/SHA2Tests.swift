import Foundation
import Testing
@testable import Strata

/// FIPS 180-4 example vectors, including messages that need an extra padding block.
@Suite struct SHA2Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256(message: String, expected: String) {
        #expect(SHA256.hash(Data(message.utf8)).hexString == expected)
    }

    @Test func sha256OfAMillionAs() {
        #expect(SHA256.hash(Data(repeating: UInt8(ascii: "a"), count: 1_000_000)).hexString
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(arguments: [
        ("", "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        ("abc", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"),
    ])
    func sha512(message: String, expected: String) {
        #expect(SHA512.hash(Data(message.utf8)).hexString == expected)
    }

    @Test func everyPaddingLengthAroundABlockBoundary() {
        // 55 and 56 bytes straddle the point where SHA-256 padding needs a second block; the
        // digests must differ from each other and be stable across calls.
        let digests = (50...70).map { SHA256.hash(Data(repeating: 0x61, count: $0)) }
        #expect(Set(digests).count == digests.count)
        #expect(digests.allSatisfy { $0.count == 32 })
    }
}
