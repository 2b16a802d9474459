// SPDX-License-Identifier: Apache-2.0
//
// RFC 4648 section 4 base64 (standard alphabet, `=` padding): Kubernetes Secret `data`, a
// kubeconfig's `*-data`, JSONPatch bodies of admission answers, OpenSSH key blobs. The one
// implementation in libtrainer; plugins use it too.
#pragma once

#include "trainer/error.hpp"

#include <string>
#include <string_view>

namespace trainer {

/// Padded base64 of `bytes`, no line breaks.
[[nodiscard]] std::string base64_encode(std::string_view bytes);

/// How strict `base64_decode` is.
enum class Base64Decoding {
  /// Exactly what `base64_encode` writes: no line breaks, zero bits under the padding (Go's
  /// `StdEncoding.Strict()`). For blobs that are compared or re-encoded (OpenSSH keys).
  kCanonical,
  /// Go's `base64.StdEncoding`, as a Go program reads a Secret's `data` or any `[]byte` in JSON
  /// or YAML: `\r` and `\n` are skipped anywhere, bits under the padding are ignored.
  kGo,
};

/// The bytes of padded base64 `text`. Errors (`kParse`) with Go's text and offset:
/// `illegal base64 data at input byte <n>` (a character outside the alphabet, a missing or
/// misplaced `=`, a text that ends inside a quantum, non-zero bits under the padding when
/// canonical).
[[nodiscard]] Result<std::string> base64_decode(std::string_view text,
                                                Base64Decoding mode = Base64Decoding::kCanonical);

}  // namespace trainer
