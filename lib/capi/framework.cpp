// SPDX-License-Identifier: Apache-2.0
// trainer_framework_*: the built-in plugins of a set of feature gates plus the added plugins, as
// a shared trainer::Framework rebuilt (Framework::with_plugins, which makes every check) on
// each add, so that a framework already handed to a controller stays as it was. The plugins are
// shared between the rebuilds.
#include "capi/capi.hpp"
#include "capi/plugin.hpp"
#include "trainer/render.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

using trainer::capi::guard;
using trainer::capi::guard_value;
using trainer::capi::guard_void;
using trainer::capi::set_error;

// The names of `framework`'s plugins, NUL-terminated, in framework order.
std::vector<std::string> plugin_names(const trainer::Framework& framework) {
  std::vector<std::string> names;
  names.reserve(framework.plugins().size());
  for (const auto& plugin : framework.plugins()) names.emplace_back(plugin->name());
  return names;
}

}  // namespace

namespace trainer::capi {

Result<std::shared_ptr<const Framework>> plugins_of(std::string_view what, const char* gates,
                                                    const trainer_framework* framework) {
  const bool has_gates = gates != nullptr && *gates != '\0';
  if (framework != nullptr) {
    if (has_gates) {
      return fail(ErrorCode::kInvalidArgument,
                  std::string(what) +
                      ": feature_gates must be empty with a framework (the framework's gates "
                      "apply)");
    }
    return framework->framework;
  }
  auto parsed = parse_feature_gates(has_gates ? gates : "");
  if (!parsed) {
    return fail(ErrorCode::kInvalidArgument,
                std::string(what) + ": feature_gates: " + parsed.error().message);
  }
  return std::shared_ptr<const Framework>(std::shared_ptr<const Framework>(),
                                          &default_framework(*parsed));
}

}  // namespace trainer::capi

extern "C" {

trainer_status trainer_framework_new(const char* feature_gates, trainer_framework** out,
                                     trainer_error** err) {
  return guard(err, [&] {
    if (out == nullptr) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT, "trainer_framework_new: out is NULL");
    }
    *out = nullptr;
    auto gates = trainer::parse_feature_gates(feature_gates == nullptr ? "" : feature_gates);
    if (!gates) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                       "trainer_framework_new: feature_gates: " + gates.error().message);
    }
    auto built = trainer::Framework::with_plugins(trainer::FrameworkOptions{*gates, {}}, {});
    if (!built) return set_error(err, built.error());
    auto handle = std::make_unique<trainer_framework>();
    handle->names = plugin_names(*built);
    handle->framework = std::make_shared<const trainer::Framework>(std::move(*built));
    *out = handle.release();
    return TRAINER_OK;
  });
}

trainer_status trainer_framework_add(trainer_framework* framework, trainer_plugin* plugin,
                                     trainer_error** err) {
  // Ours in every case, also when the call fails (freed on return unless added).
  std::unique_ptr<trainer_plugin> owned(plugin);
  return guard(err, [&] {
    if (framework == nullptr || owned == nullptr) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                       framework == nullptr ? "trainer_framework_add: framework is NULL"
                                            : "trainer_framework_add: plugin is NULL");
    }
    const std::shared_ptr<trainer::Plugin> added(std::move(owned->plugin));
    std::vector<std::shared_ptr<trainer::Plugin>> extra = framework->added;
    extra.push_back(added);
    auto built = trainer::Framework::with_plugins(
        trainer::FrameworkOptions{framework->framework->feature_gates(), {}}, std::move(extra));
    if (!built) return set_error(err, built.error());
    auto names = plugin_names(*built);
    auto shared = std::make_shared<const trainer::Framework>(std::move(*built));
    framework->added.push_back(added);  // the one step that may throw before the commit
    framework->framework = std::move(shared);
    framework->names = std::move(names);
    return TRAINER_OK;
  });
}

size_t trainer_framework_plugin_count(const trainer_framework* framework) {
  return guard_value<size_t>(0, [&] { return framework == nullptr ? 0 : framework->names.size(); });
}

const char* trainer_framework_plugin_name(const trainer_framework* framework, size_t i) {
  return guard_value<const char*>(nullptr, [&]() -> const char* {
    if (framework == nullptr || i >= framework->names.size()) return nullptr;
    return framework->names[i].c_str();
  });
}

void trainer_framework_free(trainer_framework* framework) {
  guard_void([&] { delete framework; });
}

}  // extern "C"
