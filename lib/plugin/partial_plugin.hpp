// SPDX-License-Identifier: Apache-2.0
//
// A plugin that derives from every extension-point interface but takes part only in some
// phases: the adapter of a C plugin, which has one optional callback per phase. The Framework
// asks it, after the dynamic_cast, whether it really implements a phase.
#pragma once

#include "plugin/plugin_internal.hpp"
#include "trainer/framework.hpp"

namespace trainer::detail {

class PartialPlugin {
 public:
  virtual ~PartialPlugin() = default;
  [[nodiscard]] virtual bool implements(PluginPhase phase) const noexcept = 0;
};

/// Whether `plugin` takes part in `phase`: true unless it is a PartialPlugin that says no.
[[nodiscard]] inline bool takes_part(const Plugin* plugin, PluginPhase phase) {
  const auto* partial = dynamic_cast<const PartialPlugin*>(plugin);
  return partial == nullptr || partial->implements(phase);
}

}  // namespace trainer::detail
