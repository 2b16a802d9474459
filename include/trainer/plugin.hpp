// SPDX-License-Identifier: Apache-2.0
//
// Plugins from outside the library in the C++ core: a plugin of the C ABI (trainer/plugin.h),
// in process or loaded from a shared library, becomes a `trainer::Plugin` that implements
// every extension point it has a callback for, so the pipeline runs it exactly like a built-in
// plugin. Also the JSON views the C ABI exchanges (docs/plugins.md), for C++ authors who want
// to test a plugin's reply without the C ABI.
#pragma once

#include "trainer.h"
#include "trainer/error.hpp"
#include "trainer/framework.hpp"
#include "trainer/model.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace trainer {

/// A C ABI plugin as a C++ Plugin. The descriptor is copied; on success the plugin owns
/// `desc.user_data` (user_data_free is called once when the plugin is destroyed); on failure
/// nothing is called. Fails with `kInvalidArgument` for a bad name and `kUnsupported` for an
/// ABI version this library does not support (messages as trainer_plugin_new() documents).
[[nodiscard]] Result<std::shared_ptr<Plugin>> plugin_from_descriptor(
    const trainer_plugin_descriptor& desc);

/// trainer_plugin_load(): dlopen `path`, call its `trainer_plugin_entry`, check the ABI version,
/// and make a plugin of its descriptor. The library is never unloaded. Errors as
/// trainer_plugin_load() documents, each message naming `path`.
[[nodiscard]] Result<std::shared_ptr<Plugin>> load_plugin(const std::string& path);

/// The `info` member of a plugin request: `info` in the JSON shape docs/plugins.md describes.
[[nodiscard]] boost::json::object info_to_json(const Info& info);

/// Applies the `info` member of a plugin reply to `info` (strategic-merge semantics with
/// upstream's identity rules, docs/plugins.md). Fails with `kInvalid` and the field path in the
/// reply (`info.podSets[0].count: Invalid value: "two": expected int32`) when the patch or its
/// result has the wrong shape; `info` is then unchanged.
[[nodiscard]] Result<void> apply_info_patch(Info& info, const boost::json::value& patch);

}  // namespace trainer
