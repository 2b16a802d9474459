// SPDX-License-Identifier: Apache-2.0
//
// SSH keys for MPI jobs, in the formats upstream's MPI plugin writes into the
// `<job>-mpi-ssh-auth` Secret (kubeflow/trainer pkg/runtime/framework/plugins/mpi/mpi.go):
//
// * private key: ECDSA on NIST P-521, one PEM block `EC PRIVATE KEY` holding the SEC 1 /
//   RFC 5915 `ECPrivateKey` DER (named curve, public key included), as Go's
//   `x509.MarshalECPrivateKey` + `pem.EncodeToMemory`;
// * public key: one OpenSSH authorized_keys line `ecdsa-sha2-nistp521 <base64>\n` without a
//   comment, as `ssh.MarshalAuthorizedKey`. The base64 holds the RFC 4253 section 6.6 public key
//   blob with the RFC 5656 section 3.1 ECDSA layout: string "ecdsa-sha2-nistp521",
//   string "nistp521", string Q (the SEC 1 uncompressed point, 133 bytes).
//
// Private key bytes never appear in an error message. The implementation uses OpenSSL 3 (EVP,
// encoder/decoder APIs); OpenSSL is not visible through this header.
//
// Thread safety: every function may be called concurrently from any thread.
#pragma once

#include "trainer/error.hpp"
#include "trainer/framework.hpp"  // SshKeyPair

#include <string>
#include <string_view>

namespace trainer {

/// A fresh ECDSA P-521 key pair from the operating system's CSPRNG (OpenSSL's default DRBG).
/// Errors: kInternal when OpenSSL fails (message names the step, never key material).
[[nodiscard]] Result<SshKeyPair> generate_ssh_key_pair();

/// The key pair of an existing private key: `pem` is one PEM block, either `EC PRIVATE KEY`
/// (SEC 1) or unencrypted PKCS#8 `PRIVATE KEY`, with optional surrounding whitespace. The
/// returned `private_key_pem` is the key re-encoded in the Secret's canonical form: SEC 1
/// `EC PRIVATE KEY`, named curve, uncompressed public point (so PKCS#8, compressed-point or
/// explicit-parameter P-521 inputs are normalised; a canonical input comes back byte for byte).
/// Errors: kParse when the text is not a readable private key (no PEM block, several blocks,
/// bad base64/DER, OpenSSH-format or encrypted keys); kInvalid when it is a readable key of the
/// wrong kind, type or curve (a public key, RSA, Ed25519, P-256, explicit parameters of an
/// unnamed curve) or its embedded public key does not belong to the private key; kLimit above
/// 64 KiB.
[[nodiscard]] Result<SshKeyPair> ssh_key_pair_from_private_key(std::string_view pem);

/// Reads a private key file (as `--ssh-private-key FILE` does) and derives its key pair as
/// `ssh_key_pair_from_private_key`. Errors as that function, plus kIo when the file cannot be
/// read (the message names the path and the OS error).
[[nodiscard]] Result<SshKeyPair> read_ssh_key_pair_file(const std::string& path);

/// The SHA-256 fingerprint of an authorized_keys line as `ssh-keygen -l` prints it:
/// `SHA256:<unpadded base64 of SHA-256(blob)>`. Accepts `ecdsa-sha2-nistp521 <base64>` with an
/// optional comment and trailing newline. Errors: kParse for a malformed line or blob, kInvalid
/// for another key type.
[[nodiscard]] Result<std::string> ssh_public_key_fingerprint(std::string_view authorized_key);

}  // namespace trainer
