// SPDX-License-Identifier: Apache-2.0
//
// Resolution of plain YAML scalars, following Kubernetes' YAML front end (sigs.k8s.io/yaml:
// go-yaml v2 resolves the scalar, the result is then marshalled to JSON). docs/yaml.md lists
// the rules with examples.
#pragma once

#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <variant>

namespace trainer::detail {

/// A resolved scalar, or the reason it has no JSON form (`.inf`, `.nan`).
using ResolvedScalar = std::variant<boost::json::value, std::string>;

/// Resolves an untagged plain scalar:
/// - null: ``, `~`, `null`, `Null`, `NULL`
/// - bool: `y Y yes Yes YES true True TRUE on On ON` and `n N no No NO false False FALSE off Off
/// OFF`
/// - int: after deleting every `_`, Go's `strconv.ParseInt(s, 0, 64)` (decimal, `0x`, `0o`, `0b`,
///   leading-`0` octal, optional sign); if that overflows, `ParseUint` (uint64)
/// - float: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` (after deleting `_`), or a
///   scalar starting with `.` that is `\.[0-9]+([eE][-+]?[0-9]+)?`; a float out of double range
///   stays a string, like go-yaml. `.inf`/`.nan` forms are errors (JSON cannot hold them).
///   An integral float below 1e21 becomes an integer, because Go marshals it without a fraction
///   and every JSON reader then sees an integer.
/// - anything else is a string (timestamps included: go-yaml keeps them strings for
///   `interface{}` targets).
[[nodiscard]] ResolvedScalar resolve_plain_scalar(std::string_view text);

/// True when `text`, written as a plain scalar, resolves back to the same string.
[[nodiscard]] bool plain_scalar_is_string(std::string_view text);

}  // namespace trainer::detail
