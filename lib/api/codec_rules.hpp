// SPDX-License-Identifier: Apache-2.0
//
// Where a described struct departs from the struct codec's defaults (struct_codec.hpp). A
// description specializes these next to its BOOST_DESCRIBE_STRUCT lines (model_describe.hpp,
// lib/plugin/info_describe.hpp), so that all it says about a type is in one place.
#pragma once

#include <array>
#include <string_view>

namespace trainer::detail {

// ---- encoding: by default a plain (non-optional) member is left out when its JSON is empty
// ("", [] or {}): Go's `omitempty` on strings, slices and maps and `omitzero` on structs.

/// Structs whose plain members are all written, empty or not.
template <class T>
inline constexpr bool kWritesEmptyFields = false;

/// Single members written even when empty.
template <auto Member>
inline constexpr bool kWrittenWhenEmpty = false;

// ---- decoding: by default an unknown key is a warning (kubectl's `unknown field`).

/// Keys of the Go type that the model does not keep; they are skipped without a warning.
template <class T>
inline constexpr std::array<std::string_view, 0> kDroppedFields{};

/// Structs whose unknown keys (their own or their members') are an error, not a warning.
template <class T>
inline constexpr bool kUnknownFieldsAreErrors = false;

}  // namespace trainer::detail
