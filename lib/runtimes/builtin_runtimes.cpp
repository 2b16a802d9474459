// SPDX-License-Identifier: Apache-2.0
#include "trainer/runtimes.hpp"

#include "runtimes/builtin_runtimes_data.hpp"

#include <algorithm>

namespace trainer {

const std::vector<BuiltinRuntime>& builtin_runtimes() noexcept {
  return detail::builtin_runtime_table();
}

std::optional<std::string_view> find_builtin_runtime(std::string_view name) noexcept {
  const auto& table = detail::builtin_runtime_table();
  const auto it = std::find_if(table.begin(), table.end(),
                               [&](const BuiltinRuntime& r) { return r.name == name; });
  if (it == table.end()) return std::nullopt;
  return it->yaml;
}

}  // namespace trainer
