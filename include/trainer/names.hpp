// SPDX-License-Identifier: Apache-2.0
//
// Kubernetes name and label rules, as k8s.io/apimachinery v0.36 (Kubeflow Trainer's version)
// has them in pkg/util/validation and pkg/api/validate/content. Each function returns the list
// of violation messages, empty when valid, with Kubernetes' exact texts (e.g. `a lowercase RFC
// 1123 label must consist of lower case alphanumeric characters or '-', and must start and end
// with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is
// '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`). Note the two length wordings upstream: the util/validation
// DNS checks say "characters", the content-package checks (qualified names, label values, and
// the DNS prefix inside a qualified name) say "bytes". Public so that a plugin written outside
// the library checks names with the same rules and texts as the built-in ones.
#pragma once

#include "trainer/error.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer {

/// The violation messages of one value; empty when it is valid.
using NameMessages = std::vector<std::string>;

/// `IsDNS1123Label`: <= 63 chars, `[a-z0-9]([-a-z0-9]*[a-z0-9])?`.
[[nodiscard]] NameMessages is_dns1123_label(std::string_view value);
/// `IsDNS1123Subdomain`: <= 253 chars, dot-separated DNS-1123 labels.
[[nodiscard]] NameMessages is_dns1123_subdomain(std::string_view value);
/// `IsDNS1035Label`: <= 63 chars, `[a-z]([-a-z0-9]*[a-z0-9])?`.
[[nodiscard]] NameMessages is_dns1035_label(std::string_view value);
/// `IsQualifiedName` (= content `IsLabelKey`): label keys and annotation keys, `[prefix/]name`.
[[nodiscard]] NameMessages is_qualified_name(std::string_view value);
/// `IsValidLabelValue` (= content `IsLabelValue`): <= 63 bytes, empty or
/// `(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?`.
[[nodiscard]] NameMessages is_valid_label_value(std::string_view value);
/// `IsCIdentifier`: `[A-Za-z_][A-Za-z0-9_]*`.
[[nodiscard]] NameMessages is_c_identifier(std::string_view value);
/// `IsEnvVarName`: `[-._a-zA-Z][-._a-zA-Z0-9]*` and not `.`/`..`/starting with `..`.
[[nodiscard]] NameMessages is_env_var_name(std::string_view value);
/// `IsConfigMapKey` (ConfigMap and Secret data keys, which become file names in volumes):
/// <= 253 chars, `[-._a-zA-Z0-9]+`, and not `.`/`..`/starting with `..`.
[[nodiscard]] NameMessages is_config_map_key(std::string_view value);
/// `IsDomainPrefixedPath(fldPath, value)`: `<DNS-1123 subdomain>/<RFC 3986 path chars>`, as
/// Kubeflow's runtime-patch manager rule uses it. Upstream returns field errors whose value is
/// the offending part (the whole text, the host or the path), so this does too, at `path`.
[[nodiscard]] std::vector<FieldError> is_domain_prefixed_path(const std::string& path,
                                                              std::string_view value);

/// The edit distance of two texts, byte by byte: the fewest insertions, deletions,
/// substitutions and swaps of neighbours that turn one into the other (optimal string
/// alignment; `gte` is one edit from `get`, as a typist sees it). What "did you mean" hints,
/// of runtime names and of trainerctl's commands, are measured with.
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

/// The name `typed` was most likely meant as, for a "did you mean" hint: the candidate at the
/// least edit distance (ignoring case; the first of equals), when that distance is at most a
/// third of the longer of the two (and at least 1); nullopt when no candidate is that close.
[[nodiscard]] std::optional<std::string> closest_name(std::string_view typed,
                                                      const std::vector<std::string>& candidates);

}  // namespace trainer
