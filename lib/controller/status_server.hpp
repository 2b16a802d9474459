// SPDX-License-Identifier: Apache-2.0
// The TrainJobStatus progress endpoint on a cluster (upstream pkg/statusserver): the caller's
// token is verified by the API server (a TokenReview for the TrainJob's audience) and must be
// bound to a pod of that TrainJob; the values are server-side applied to the TrainJob's status
// subresource as `status.trainerStatus` by field manager `trainer-status`.
#pragma once

#include "serving/progress_endpoint.hpp"
#include "trainer/kube.hpp"

namespace trainer::controller {

inline constexpr const char* kTrainerStatusFieldManager = "trainer-status";

/// The backend over `client` (borrowed; it must outlive the backend). `cancel` ends the requests
/// in flight when the server stops. Each API request is bounded by `timeout`.
[[nodiscard]] serving::ProgressBackend cluster_progress_backend(kube::Client& client,
                                                                kube::CancelToken cancel,
                                                                std::chrono::milliseconds timeout);

}  // namespace trainer::controller
