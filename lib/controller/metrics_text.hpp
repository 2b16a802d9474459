// SPDX-License-Identifier: Apache-2.0
//
// The Prometheus text exposition (format 0.0.4) of the controller's counters.
#pragma once

#include "trainer/controller.hpp"

#include <string>

namespace trainer::controller::detail {

/// trainer_reconcile_total, trainer_reconcile_errors_total (counters), trainer_workqueue_depth
/// (gauge), trainer_reconcile_duration_seconds_sum/_count (summary without quantiles) and
/// trainer_leader (gauge 0/1), each with its HELP and TYPE lines.
[[nodiscard]] std::string prometheus_text(const ControllerMetrics& metrics);

}  // namespace trainer::controller::detail
