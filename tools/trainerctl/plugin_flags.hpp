// SPDX-License-Identifier: Apache-2.0
// `--plugin PATH` (render, validate, run, controller): framework plugins loaded from shared
// libraries (docs/plugins.md), one Framework for every path a command takes; and
// `--feature-gates` (render, run, controller), the gates that choose the built-in plugins.
#pragma once

#include "flags.hpp"

#include "trainer/framework.hpp"
#include "trainer/render.hpp"

#include <tl/expected.hpp>

#include <memory>

namespace trainerctl {

inline const Flag kPluginFlag{
    "plugin",
    '\0',
    "PATH",
    "load a framework plugin: a shared library exporting trainer_plugin_entry "
    "(docs/plugins.md); repeatable, run in the order given",
    {},
    {},
    true};

inline const Flag kFeatureGatesFlag{
    "feature-gates",
    '\0',
    "NAME=BOOL,...",
    "controller feature gates, e.g. TrainJobStatus=true (default: all off)",
    {},
    {},
    false,
    true};

/// Every `--feature-gates` value, read as one list. A bad one prints `error: --feature-gates:
/// <why>` and fails with kExitUsage.
[[nodiscard]] tl::expected<trainer::FeatureGates, int> feature_gates_flag(const Parsed& args);

/// The built-in plugins of `gates` followed by every `--plugin` library in command-line order,
/// bound to `gates` (never null: `default_framework(gates)` without `--plugin`). When a
/// library cannot be loaded or the plugins cannot be put together (a name taken twice), prints
/// `error: <the library's message>` and fails with kExitUsage.
[[nodiscard]] tl::expected<std::shared_ptr<const trainer::Framework>, int> plugin_framework(
    const Parsed& args, const trainer::FeatureGates& gates);

}  // namespace trainerctl
