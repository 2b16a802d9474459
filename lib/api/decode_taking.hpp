// SPDX-License-Identifier: Apache-2.0
//
// The decoders of trainer/codec.hpp for a document the caller gives up, as admission decodes
// each input once: the JSON a typed object carries verbatim (a runtime's JobSet template, env
// lists) is moved out of the document instead of copied (DecodeContext's `takes_document`).
#pragma once

#include "trainer/codec.hpp"

#include <boost/json/value.hpp>

namespace trainer::detail {

/// `decode_train_job`, `decode_training_runtime`, `decode_cluster_training_runtime` or
/// `decode_optimization_job` of `doc` (Kind: TrainJob, TrainingRuntime, ClusterTrainingRuntime,
/// OptimizationJob); `doc` is left valid but unspecified.
template <class Kind>
[[nodiscard]] Result<Decoded<Kind>> decode_taking(boost::json::value&& doc);

template <>
[[nodiscard]] Result<Decoded<TrainJob>> decode_taking(boost::json::value&& doc);
template <>
[[nodiscard]] Result<Decoded<TrainingRuntime>> decode_taking(boost::json::value&& doc);
template <>
[[nodiscard]] Result<Decoded<ClusterTrainingRuntime>> decode_taking(boost::json::value&& doc);
template <>
[[nodiscard]] Result<Decoded<OptimizationJob>> decode_taking(boost::json::value&& doc);

}  // namespace trainer::detail
