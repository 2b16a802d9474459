// SPDX-License-Identifier: Apache-2.0
//
// The one rule of the C ABI's versioned option structs (docs/bindings.md, "Option structs grow
// by appending"): a struct of version 1 up to the library's newest is read, each field only when
// the caller's version has it; anything else is refused with TRAINER_E_INVALID_ARGUMENT. Every
// `<type>_init(opts, version)` writes only the fields of `version`.
#pragma once

#include "trainer.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace trainer::capi {

/// Whether a struct of `version` is one this library reads, for a type whose newest version is
/// `current`: a version above ours is a struct we cannot read, 0 is no struct at all.
[[nodiscard]] constexpr bool known_version(std::uint32_t version, std::uint32_t current) noexcept {
  return version >= 1 && version <= current;
}

/// `<type>.version <v> is not supported (expected 1 to <current>)`.
[[nodiscard]] inline std::string unsupported_version(std::string_view type, std::uint32_t version,
                                                     std::uint32_t current) {
  return std::string(type) + ".version " + std::to_string(version) +
         " is not supported (expected 1 to " + std::to_string(current) + ")";
}

/// The body of `<type>_init(opts, version)`: the first `size_of(version)` bytes of `init` (the
/// fields a struct of that version has), then `version`. TRAINER_E_INVALID_ARGUMENT for NULL or
/// an unknown version; nothing is written then.
template <class Options, class SizeOf>
[[nodiscard]] trainer_status init_options(Options* opts, std::uint32_t version,
                                          std::uint32_t current, const Options& init,
                                          SizeOf size_of) {
  if (opts == nullptr || !known_version(version, current)) return TRAINER_E_INVALID_ARGUMENT;
  std::memcpy(static_cast<void*>(opts), &init, size_of(version));
  opts->version = version;
  return TRAINER_OK;
}

/// `init_options` for a type that has one version only.
template <class Options>
[[nodiscard]] trainer_status init_options(Options* opts, std::uint32_t version,
                                          std::uint32_t current, const Options& init) {
  return init_options(opts, version, current, init, [](std::uint32_t) { return sizeof(Options); });
}

}  // namespace trainer::capi
