// SPDX-License-Identifier: Apache-2.0
//
// Katib `kubeflow.org/v1beta1` Experiment -> Trainer `OptimizationJob` (reference 5.4).
#pragma once

#include "trainer/convert.hpp"

#include <boost/json/object.hpp>

namespace trainer::convert::detail {

/// [generated TrainingRuntime (for a batch/v1 Job trial, or as a v1 job's conversion made it),]
/// OptimizationJob. Warnings name the Experiment's field paths.
[[nodiscard]] Result<Conversion> convert_experiment(const boost::json::object& experiment,
                                                    const Options& options);

}  // namespace trainer::convert::detail
