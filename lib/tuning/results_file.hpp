// SPDX-License-Identifier: Apache-2.0
// `results.json` of a local tuning run (docs/tuning.md, "Running locally"): the document and
// its atomic write.
#pragma once

#include "trainer/tuning_local.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace trainer::tuning::detail {

/// The results document: the OptimizationJob's identity and objective, `finished`, every trial
/// (name, runDir, parameters, state, reason, message, metrics, objective) and `status` as the API
/// encodes it (conditions, result).
[[nodiscard]] boost::json::value results_document(const OptimizationJob& job,
                                                  const std::vector<LocalTrial>& trials,
                                                  const OptimizationJobStatus& status,
                                                  bool finished);

/// Writes `doc` to `<run_dir>/results.json` so that a reader never sees half a document (a
/// temporary file renamed over it).
[[nodiscard]] Result<void> write_results(const std::string& run_dir, const boost::json::value& doc);

}  // namespace trainer::tuning::detail
