// SPDX-License-Identifier: Apache-2.0
// `get`'s human-readable output: a server-side `meta.k8s.io/v1` Table printed as kubectl
// prints it (headers upper-cased, Go's text/tabwriter with kubectl's settings). The tuning
// table (`trainerctl run`/`status` of an OptimizationJob) uses the same layout, fitted to the
// terminal's width (`tab_write_fit`).
#pragma once

#include <boost/json/object.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace trainerctl {

using TextRow = std::vector<std::string>;

/// Go's text/tabwriter as kubectl configures it: minimum cell width 6, padding 3 spaces, the
/// last cell of each line unpadded. Widths count UTF-8 characters.
[[nodiscard]] std::string tab_write(const std::vector<TextRow>& lines);
/// The same with other settings: kubectl describe's are minimum width 0, padding 2.
[[nodiscard]] std::string tab_write(const std::vector<TextRow>& lines, std::size_t min_width,
                                    std::size_t padding);

/// The columns of the terminal `fd` is (TIOCGWINSZ); else $COLUMNS when it is a positive
/// number; else 80.
[[nodiscard]] std::size_t terminal_width(int fd);

/// The rows of the terminal `fd` is (TIOCGWINSZ); 0 when it is not a terminal.
[[nodiscard]] std::size_t terminal_height(int fd);

/// The characters `text` takes on a terminal: its UTF-8 characters.
[[nodiscard]] std::size_t display_width(std::string_view text);

/// `text` cut to at most `width` characters (UTF-8 aware), `...` marking the cut: at the end,
/// or in the middle when `keep_end` (names told apart by their end: `<job>-trial-12`). Below
/// 4 characters the text is just cut.
[[nodiscard]] std::string shorten(std::string_view text, std::size_t width, bool keep_end = false);

/// One way a table gives way when it is wider than the terminal (see `tab_write_fit`).
struct FitStep {
  std::size_t column = 0;     ///< the column's index in the lines given
  std::size_t min_width = 0;  ///< cut its cells down to this width at most; 0: drop the column
  bool keep_end = false;      ///< cut in the middle (see `shorten`)
};

/// `tab_write(lines)` at most `width` characters wide: while the table is too wide, the next of
/// `steps` is applied (its column's cells cut just enough, or no further than its `min_width`,
/// or the column dropped); a line still too wide after every step is cut at `width`. Trailing
/// blanks are removed.
[[nodiscard]] std::string tab_write_fit(std::vector<TextRow> lines, std::size_t width,
                                        const std::vector<FitStep>& steps);

/// The lines of `table`: the header, then one row per object. Columns of priority > 0 only
/// when `wide`; `with_namespace` (-A) puts NAMESPACE first (from each row's object metadata).
[[nodiscard]] std::vector<TextRow> table_lines(const boost::json::object& table, bool wide,
                                               bool with_namespace, bool with_header = true);

}  // namespace trainerctl
