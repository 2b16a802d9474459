// SPDX-License-Identifier: Apache-2.0
//
// The admission webhooks of the controller (upstream pkg/webhooks, served as controller-runtime
// serves them): `admission.k8s.io/v1` AdmissionReview in, AdmissionReview out, on upstream's
// paths. Each is a `serving::Handler`, tested without a socket; `Controller::run` serves them
// over HTTPS (https_server.hpp) when `ServingOptions::webhook_port` is set.
//
// Every validating webhook admits through the one admission path (`trainer::admit_object`, or
// `admit_update` with the old object on UPDATE): the CRD rules, the runtime webhook rules, and
// for a TrainJob (and an OptimizationJob's template) the live runtime read from the cluster and
// every plugin's validation of the controller's Framework (`--plugin` libraries included).
// The mutating webhook does exactly what upstream's defaulter does: it stamps
// `spec.runtimePatches[].time` (reference 2.2), answered as a JSONPatch.
//
// Answers follow controller-runtime (v0.24): allowed: `status.code` 200; a validator's field
// errors: denied with code 403, reason Forbidden and the aggregate text as the message (upstream
// returns `ErrorList.ToAggregate()`, no APIStatus), plus `details.causes` (libtrainer's: one
// cause per field error); a review that cannot be read: denied with code 400 (413 for a body
// over the limit), HTTP 200, as controller-runtime's `Errored`. DELETE and CONNECT: allowed.
#pragma once

#include "serving/http_message.hpp"
#include "trainer/controller.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::serving {
struct Route;
}  // namespace trainer::serving

namespace trainer::controller {

inline constexpr std::string_view kValidateTrainJobPath =
    "/validate-trainer-kubeflow-org-v1alpha1-trainjob";
inline constexpr std::string_view kValidateTrainingRuntimePath =
    "/validate-trainer-kubeflow-org-v1alpha1-trainingruntime";
inline constexpr std::string_view kValidateClusterTrainingRuntimePath =
    "/validate-trainer-kubeflow-org-v1alpha1-clustertrainingruntime";
inline constexpr std::string_view kMutateTrainJobPath =
    "/mutate-trainer-kubeflow-org-v1alpha1-trainjob";
/// libtrainer's extension (upstream has no OptimizationJob webhook).
inline constexpr std::string_view kValidateOptimizationJobPath =
    "/validate-trainer-kubeflow-org-v1alpha1-optimizationjob";

/// controller-runtime's limit on an AdmissionReview body (7 MiB).
inline constexpr std::size_t kAdmissionReviewLimit = std::size_t{7} * 1024 * 1024;

/// What a webhook reads from the cluster while it admits one review. One reader per review:
/// its answers are remembered for that review only.
class WebhookReader {
 public:
  virtual ~WebhookReader() = default;
  /// The live runtime `job.spec.runtimeRef` (defaulted) names, in `job`'s namespace for a
  /// TrainingRuntime; nullopt when it does not exist; an error when it cannot be read.
  [[nodiscard]] virtual Result<std::optional<boost::json::value>> runtime(const TrainJob& job) = 0;
  /// The plugins' lookup (`RenderContext::lookup`): an object of the cluster, or nullopt.
  [[nodiscard]] virtual std::optional<boost::json::value> find(std::string_view api_version,
                                                               std::string_view kind,
                                                               std::string_view ns,
                                                               std::string_view name) = 0;
  /// A lookup that failed for another reason than NotFound (the review is then answered 500).
  [[nodiscard]] virtual std::optional<Error> lookup_error() = 0;
};

/// A reader over the cluster: the reconciler's runtime fetch and lookup (cluster_lookup.hpp).
[[nodiscard]] std::unique_ptr<WebhookReader> cluster_reader(kube::Client& client,
                                                            kube::CancelToken cancel);

struct WebhookOptions {
  /// The plugins of every TrainJob admission, with their feature gates and operator
  /// configuration; null: `default_framework({})`.
  std::shared_ptr<const Framework> framework;
  /// A reader for one review. Required for the TrainJob and OptimizationJob webhooks.
  std::function<std::unique_ptr<WebhookReader>()> reader;
  /// The defaulter's clock (tests); default system_clock::now.
  std::function<Clock::time_point()> now;
};

/// The webhooks. Thread-safe: every handler may run on several threads at once.
class AdmissionWebhooks {
 public:
  explicit AdmissionWebhooks(WebhookOptions options);

  [[nodiscard]] serving::Response validate_train_job(const serving::Request& request) const;
  [[nodiscard]] serving::Response validate_training_runtime(const serving::Request& request) const;
  [[nodiscard]] serving::Response validate_cluster_training_runtime(
      const serving::Request& request) const;
  [[nodiscard]] serving::Response validate_optimization_job(const serving::Request& request) const;
  [[nodiscard]] serving::Response mutate_train_job(const serving::Request& request) const;

  /// The five handlers as POST routes of `kAdmissionReviewLimit` (an oversized body is answered
  /// with a 413 AdmissionReview). The routes refer to this object: it must outlive the server.
  [[nodiscard]] std::vector<serving::Route> routes() const;

 private:
  WebhookOptions options_;
};

}  // namespace trainer::controller
