// SPDX-License-Identifier: Apache-2.0
//
// API paths and query strings (reference section 4.1): `/api/v1/...` for the core group,
// `/apis/<group>/<version>/...` otherwise, `namespaces/<ns>/` for namespaced resources.
#pragma once

#include "trainer/kube.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace trainer::kube::detail {

/// client-go's IsValidPathSegmentName: not empty, not `.` or `..`, no `/` or `%`.
/// `kInvalidArgument` naming `what` (`name`, `namespace`) otherwise.
[[nodiscard]] Result<void> check_path_segment(std::string_view what, std::string_view value);

/// `/api/v1` or `/apis/<group>/<version>`.
[[nodiscard]] std::string group_version_path(std::string_view group, std::string_view version);

/// The path of a collection (`name` empty) or an object, with an optional subresource. `ns` is
/// used for namespaced resources only; empty there means every namespace (list, watch).
[[nodiscard]] Result<std::string> resource_path(const Resource& resource, std::string_view ns,
                                                std::string_view name,
                                                std::string_view subresource = {});

/// Percent-encoding of a query value or path segment (everything but RFC 3986 unreserved).
[[nodiscard]] std::string url_escape(std::string_view text);

/// A query string built from parameters in order: `?a=1&b=x%3Dy`, empty without parameters.
class Query {
 public:
  Query& add(std::string_view key, std::string_view value);
  /// Adds only when `value` is not empty.
  Query& add_if(std::string_view key, std::string_view value);
  [[nodiscard]] std::string str() const;

 private:
  std::string text_;
};

[[nodiscard]] const char* to_query_value(FieldValidation validation) noexcept;

}  // namespace trainer::kube::detail
