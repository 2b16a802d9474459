// SPDX-License-Identifier: Apache-2.0
//
// What a plugin's output may reach (docs/plugins.md, "What a plugin may change"): the TrainJob
// fields an enforceMLPolicy plugin may change, and the objects a build may create. The Framework
// checks every plugin after each call (built-in, in process, or over the C ABI from C, Go or
// Rust), so render, run, the C ABI and the controller all refuse the same outputs.
#pragma once

#include "trainer/framework.hpp"
#include "trainer/model.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::detail {

/// The parts of a TrainJob no plugin may change: everything but `spec`. A plugin that moved the
/// TrainJob to another namespace or name, or gave it another UID or owner, would have the
/// controller write objects outside the TrainJob it reconciles.
class TrainJobIdentity {
 public:
  explicit TrainJobIdentity(const TrainJob& job);
  /// The path (`trainJob.metadata.namespace`, `trainJob.status`) of the first part `job` has
  /// changed, or "" when it changed none.
  [[nodiscard]] std::string changed_in(const TrainJob& job) const;

 private:
  std::string api_version_;
  std::string kind_;
  ObjectMeta metadata_;
  std::optional<boost::json::value> status_;
};

/// `plugin "<name>": enforceMLPolicy: <path>: Forbidden: ...` for a `path` of `changed_in`.
[[nodiscard]] Error train_job_change_refused(std::string_view plugin, const std::string& path);

/// Checks and completes the objects `plugin`'s build returned: each must be an object with
/// apiVersion, kind and metadata.name, of a namespaced kind (`ctx.inputs.namespaced`, else the
/// fixed table of `known_namespaced_kind`), in the TrainJob's namespace (set where missing), and
/// controlled by the TrainJob (the controller ownerReference is added where no controller is
/// named; another controller is refused). Errors: kInvalid `plugin "<name>": build:
/// objects[<i>]...: <what>` naming the object; an error of `ctx.inputs.namespaced` other than
/// kNotFound is passed on with that prefix.
[[nodiscard]] Result<void> confine_built_objects(std::string_view plugin,
                                                 std::vector<boost::json::value>& objects,
                                                 const TrainJob& job, const PluginContext& ctx);

/// Whether `kind` of `api_version`'s group is in the table of kinds known to be namespaced
/// without asking a cluster (core, apps, batch, rbac, ..., JobSet, the PodGroups).
[[nodiscard]] bool known_namespaced_kind(std::string_view api_version, std::string_view kind);

}  // namespace trainer::detail
