// SPDX-License-Identifier: Apache-2.0
// The TrainJobStatus progress endpoint (KEP-2779; upstream pkg/statusserver): training code posts
// `{"trainerStatus": {...}}` to
// `POST /apis/trainer.kubeflow.org/v1alpha1/namespaces/{namespace}/trainjobs/{name}/status`
// with a bearer token, and the TrainJob's `status.trainerStatus` takes the values. This is the
// request handling with upstream's codes and messages; who the caller is and where the status goes
// are the backend's (the controller: TokenReview and server-side apply; a local run: its own).
#pragma once

#include "serving/https_server.hpp"

#include <boost/json/object.hpp>

#include <functional>
#include <string>
#include <vector>

namespace trainer::serving {

inline constexpr const char* kProgressRoute =
    "/apis/trainer.kubeflow.org/v1alpha1/namespaces/{namespace}/trainjobs/{name}/status";
/// Upstream's body limit: a declared Content-Length above it is answered 413.
inline constexpr std::size_t kProgressBodyLimit = 64 * 1024;

/// The audience a caller's token must carry: `trainer.kubeflow.org/v1alpha1/namespaces/<ns>/
/// trainjobs/<name>/status` (what the TrainJobStatus plugin's projected token asks for).
[[nodiscard]] std::string progress_audience(const std::string& ns, const std::string& name);

enum class ProgressOutcome { kOk, kForbidden, kInvalid, kNotFound, kInternal };

struct ProgressResult {
  ProgressOutcome outcome = ProgressOutcome::kOk;
  std::string message;  ///< kInvalid: the API server's message, answered as is
};

struct ProgressBackend {
  /// Whether `token` (empty when the request carried none) may update TrainJob `ns`/`name`:
  /// kOk, kForbidden or kInternal.
  std::function<ProgressResult(const std::string& token, const std::string& ns,
                               const std::string& name)>
      authenticate;
  /// Writes `trainer_status` (normalized: lastUpdatedTime in seconds, only known members) as the
  /// TrainJob's `status.trainerStatus`: kOk, kInvalid, kNotFound or kInternal.
  std::function<ProgressResult(const std::string& ns, const std::string& name,
                               const boost::json::object& trainer_status)>
      apply;
};

/// One request, as upstream's server answers it: 403 `Forbidden`, 422 `Invalid payload`, 404
/// `Train job not found`, 500 `Internal error` (metav1.Status bodies), 200 with the parsed request
/// echoed. A body without `trainerStatus` is answered 200 and nothing is written.
[[nodiscard]] Response handle_progress(const ProgressBackend& backend, const Request& request);

/// The route of the endpoint (body limit and its 413 `Payload too large` answer) and the 404
/// `Not found` fallback, for a `ServerOptions`.
[[nodiscard]] std::vector<Route> progress_routes(const ProgressBackend& backend);
[[nodiscard]] Response progress_not_found(const Request& request);

}  // namespace trainer::serving
