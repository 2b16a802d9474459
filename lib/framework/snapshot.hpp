// SPDX-License-Identifier: Apache-2.0
//
// The runtime snapshot ConfigMap (KEP-2599, reference 3.9).
#pragma once

#include "trainer/error.hpp"
#include "trainer/framework.hpp"
#include "trainer/model.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>

namespace trainer::detail {

/// `<job>-runtime-snapshot`.
[[nodiscard]] std::string runtime_snapshot_name(const TrainJob& job);

/// The ConfigMap the controller applies: data key `runtime` = `runtime_yaml`, the YAML of the
/// runtime (`encode_yaml` of the runtime object as JSON, apiVersion and kind set), owned by the
/// TrainJob.
[[nodiscard]] boost::json::object runtime_snapshot_config_map(const TrainJob& job,
                                                              std::string runtime_yaml);

/// What a snapshot keeps of its runtime: the spec and who the runtime is (Info::runtime).
struct RuntimeSnapshot {
  TrainingRuntimeSpec spec;
  RuntimeIdentity identity;
};

/// The runtime kept in an existing snapshot (found through `ctx`), or nullopt when there is
/// none. Fails, with upstream's messages, when the snapshot is owned by another object, lacks
/// the data key, does not parse or names another runtime than `job.spec.runtimeRef`.
[[nodiscard]] Result<std::optional<RuntimeSnapshot>> read_runtime_snapshot(
    const TrainJob& job, const RenderContext& ctx);

}  // namespace trainer::detail
