// SPDX-License-Identifier: Apache-2.0
#include "trainer/runtimes.hpp"

#include "runtimes/builtin_runtimes_data.hpp"

#include <algorithm>

namespace trainer {

const std::vector<BuiltinRuntime>& builtin_runtimes() noexcept {
  static const std::vector<BuiltinRuntime> table = [] {
    std::vector<BuiltinRuntime> views;
    for (const auto& text : detail::builtin_runtime_texts())
      views.push_back({text.name, text.text});
    return views;
  }();
  return table;
}

std::optional<std::string_view> find_builtin_runtime(std::string_view name) noexcept {
  const auto& table = builtin_runtimes();
  const auto it = std::find_if(table.begin(), table.end(),
                               [&](const BuiltinRuntime& r) { return r.name == name; });
  if (it == table.end()) return std::nullopt;
  return it->yaml;
}

}  // namespace trainer
