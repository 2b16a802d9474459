// SPDX-License-Identifier: Apache-2.0
// `get`'s human-readable output: a server-side `meta.k8s.io/v1` Table printed as kubectl
// prints it (headers upper-cased, Go's text/tabwriter with kubectl's settings).
#pragma once

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace trainerctl {

using TextRow = std::vector<std::string>;

/// Go's text/tabwriter as kubectl configures it: minimum cell width 6, padding 3 spaces, the
/// last cell of each line unpadded. Widths count UTF-8 characters.
[[nodiscard]] std::string tab_write(const std::vector<TextRow>& lines);

/// The lines of `table`: the header, then one row per object. Columns of priority > 0 only
/// when `wide`; `with_namespace` (-A) puts NAMESPACE first (from each row's object metadata).
[[nodiscard]] std::vector<TextRow> table_lines(const boost::json::object& table, bool wide,
                                               bool with_namespace, bool with_header = true);

}  // namespace trainerctl
