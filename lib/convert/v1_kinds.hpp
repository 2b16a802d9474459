// SPDX-License-Identifier: Apache-2.0
//
// The six Training Operator v1 kinds: each is a KindInfo (what the shared handling needs) plus
// a planning function (which replicatedJobs, which env contract) in v1_<kind>.cpp.
// `convert_v1` (v1_convert.cpp) is the one path: read + webhook rules, plan, build, warnings.
#pragma once

#include "convert/diagnostics.hpp"
#include "convert/v1_build.hpp"
#include "convert/v1_job.hpp"
#include "trainer/convert.hpp"

#include <boost/json/object.hpp>

#include <string_view>
#include <vector>

namespace trainer::convert::detail {

struct KindConverter {
  KindInfo info;
  /// The kind's own webhook rules and its plan. Refusals go to `diag`.
  Plan (*plan)(const V1Job& job, Diagnostics& diag) = nullptr;
  /// Kind-specific spec fields the plan maps or warns about itself.
  std::vector<std::string_view> spec_fields;
};

[[nodiscard]] const KindConverter& pytorch_converter();
[[nodiscard]] const KindConverter& tensorflow_converter();
[[nodiscard]] const KindConverter& mpi_converter();
[[nodiscard]] const KindConverter& xgboost_converter();
[[nodiscard]] const KindConverter& jax_converter();
[[nodiscard]] const KindConverter& paddle_converter();

/// The converter of a `kubeflow.org/v1` kind, or null.
[[nodiscard]] const KindConverter* find_v1_kind(std::string_view kind);

[[nodiscard]] Result<Conversion> convert_v1(const boost::json::object& job,
                                            const KindConverter& converter, const Options& options);

}  // namespace trainer::convert::detail
