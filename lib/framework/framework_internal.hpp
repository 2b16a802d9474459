// SPDX-License-Identifier: Apache-2.0
//
// Pieces of the framework shared by lib/framework and the built-in plugins.
#pragma once

#include "trainer/error.hpp"
#include "trainer/model.hpp"
#include "trainer/quantity.hpp"

#include <boost/json/object.hpp>

#include <map>
#include <string>

namespace trainer::detail {

/// Value of the ancestor label on a replicated job's template.
inline constexpr const char* kAncestorLabel = "trainer.kubeflow.org/trainjob-ancestor-step";
inline constexpr const char* kAncestorTrainer = "trainer";
inline constexpr const char* kDatasetInitializer = "dataset-initializer";
inline constexpr const char* kModelInitializer = "model-initializer";
inline constexpr const char* kNodeName = "node";
inline constexpr const char* kJobSetApiVersion = "jobset.x-k8s.io/v1alpha2";
inline constexpr const char* kJobSetKind = "JobSet";

/// Kubernetes `PodRequests` (k8s.io/component-helpers resource, default options) over a pod spec
/// in JSON form: max(sum of regular containers and restartable init containers, each init
/// container plus the sidecars started before it), pod-level requests for cpu/memory/hugepages
/// when set, plus `overhead`. Requests only. Fails when a quantity does not parse.
[[nodiscard]] Result<std::map<std::string, Quantity>> pod_requests(
    const boost::json::object& pod_spec);

/// Upstream `MergeResourceRequirements`: `limits` and `requests` merge per resource name (the
/// override wins), `claims` merge by `name`.
[[nodiscard]] boost::json::object merge_resource_requirements(const boost::json::object& base,
                                                              const boost::json::object& override_);

/// The controller ownerReference to the TrainJob every generated object carries.
[[nodiscard]] boost::json::object train_job_owner_reference(const TrainJob& job);

/// `metadata.namespace` of the TrainJob, `default` when unset.
[[nodiscard]] std::string train_job_namespace(const TrainJob& job);

}  // namespace trainer::detail
