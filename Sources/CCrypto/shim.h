// OpenSSL's one-call message digests (EVP_Digest with EVP_sha256 / EVP_sha512): Core Data's
// model version hashes and the store's checksum and digest keys are SHA-256 and SHA-512.
#include <openssl/evp.h>
