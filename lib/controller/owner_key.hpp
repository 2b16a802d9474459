// SPDX-License-Identifier: Apache-2.0
//
// Work-queue keys of watched objects: a TrainJob's own `<namespace>/<name>`, and for an owned
// object (JobSet, PodGroup, MPI Secret, ConfigMap) the TrainJob named by its controller
// ownerReference, as controller-runtime's EnqueueRequestForOwner(OnlyControllerOwner) does
// (reference 9.3: group and kind must match, the version is ignored).
#pragma once

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace trainer::controller::detail {

/// `<namespace>/<name>` of `object` (empty namespace: cluster-scoped).
[[nodiscard]] std::string object_key(const boost::json::object& object);

/// The key of the TrainJob that controls `object`, or nullopt when its controller owner is
/// something else (or it has none).
[[nodiscard]] std::optional<std::string> controller_owner_key(const boost::json::object& object);

/// OptimizationJobs share the work queue with TrainJobs under keys of their own kind:
/// `OptimizationJob:<namespace>/<name>` (a namespace holds no `:`), so that a TrainJob and an
/// OptimizationJob of the same name are two keys and never reconciled by the other's pass.
[[nodiscard]] std::string optimization_key(std::string_view object_key);

/// The queue key of the OptimizationJob that controls `object` (a trial TrainJob), or nullopt.
[[nodiscard]] std::optional<std::string> optimization_owner_key(const boost::json::object& object);

/// `<namespace>/<name>` of an OptimizationJob key; nullopt for a TrainJob key.
[[nodiscard]] std::optional<std::string_view> optimization_object_key(std::string_view key);

/// Splits `<namespace>/<name>`.
[[nodiscard]] std::pair<std::string_view, std::string_view> split_key(std::string_view key);

}  // namespace trainer::controller::detail
