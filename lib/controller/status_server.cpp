// SPDX-License-Identifier: Apache-2.0
#include "controller/status_server.hpp"

#include "trainer/json_path.hpp"

#include <boost/json/array.hpp>

namespace trainer::controller {
namespace {

namespace json = boost::json;
using serving::ProgressOutcome;
using serving::ProgressResult;

constexpr const char* kPodNameExtra = "authentication.kubernetes.io/pod-name";
constexpr const char* kPodUidExtra = "authentication.kubernetes.io/pod-uid";
constexpr const char* kJobSetNameLabel = "jobset.sigs.k8s.io/jobset-name";

ProgressResult result(ProgressOutcome outcome, std::string message = {}) {
  return {outcome, std::move(message)};
}

// The first value of `user.extra[key]`.
std::string extra(const json::object& user, const char* key) {
  const auto* extras = find_object(user, "extra");
  if (extras == nullptr) return {};
  const auto* values = extras->if_contains(key);
  if (values == nullptr || !values->is_array() || values->as_array().empty()) return {};
  const auto& first = values->as_array().front();
  return first.is_string() ? std::string(first.as_string()) : std::string();
}

struct Backend {
  kube::Client* client;
  kube::CancelToken cancel;
  std::chrono::milliseconds timeout;

  kube::CallOptions call() const {
    kube::CallOptions options;
    options.cancel = cancel;
    options.timeout = timeout;
    return options;
  }

  // Upstream verifies the token as an OIDC ID token of the cluster's issuer; here the API server
  // verifies it (signature, expiry, audience, that its pod still exists), and the token must be
  // a service account's of the TrainJob's namespace bound to a pod of that TrainJob.
  ProgressResult authenticate(const std::string& token, const std::string& ns,
                              const std::string& name) const {
    if (token.empty()) return result(ProgressOutcome::kForbidden);
    const std::string audience = serving::progress_audience(ns, name);
    auto reviews = client->resource_for("authentication.k8s.io/v1", "TokenReview", call());
    if (!reviews) return result(ProgressOutcome::kInternal);
    kube::WriteOptions write;
    static_cast<kube::CallOptions&>(write) = call();
    auto review = client->create(
        *reviews, "",
        json::object{
            {"apiVersion", "authentication.k8s.io/v1"},
            {"kind", "TokenReview"},
            {"spec", json::object{{"token", token}, {"audiences", json::array{audience}}}}},
        write);
    if (!review) return result(ProgressOutcome::kInternal);
    const auto* status = find_object(*review, "status");
    if (status == nullptr) return result(ProgressOutcome::kForbidden);
    const auto* authenticated = status->if_contains("authenticated");
    if (authenticated == nullptr || !authenticated->is_bool() || !authenticated->as_bool()) {
      return result(ProgressOutcome::kForbidden);
    }
    bool audience_ok = false;
    if (const auto* audiences = status->if_contains("audiences");
        audiences != nullptr && audiences->is_array()) {
      for (const auto& a : audiences->as_array()) {
        audience_ok = audience_ok || (a.is_string() && a.as_string() == audience);
      }
    }
    const auto* user = find_object(*status, "user");
    if (!audience_ok || user == nullptr) return result(ProgressOutcome::kForbidden);
    const std::string username = find_string(*user, "username").value_or("");
    const std::string prefix = "system:serviceaccount:" + ns + ":";
    if (username.rfind(prefix, 0) != 0) return result(ProgressOutcome::kForbidden);
    const std::string pod_name = extra(*user, kPodNameExtra);
    const std::string pod_uid = extra(*user, kPodUidExtra);
    if (pod_name.empty()) return result(ProgressOutcome::kForbidden);
    auto pods = client->resource_for("v1", "Pod", call());
    if (!pods) return result(ProgressOutcome::kInternal);
    auto pod = client->get(*pods, ns, pod_name, call());
    if (!pod) {
      return result(pod.error().code == ErrorCode::kNotFound ? ProgressOutcome::kForbidden
                                                             : ProgressOutcome::kInternal);
    }
    const auto* meta = find_object(*pod, "metadata");
    if (meta == nullptr) return result(ProgressOutcome::kForbidden);
    const auto* labels = find_object(*meta, "labels");
    const bool ours =
        labels != nullptr && find_string(*labels, kJobSetNameLabel).value_or("") == name;
    const bool same_pod = pod_uid.empty() || find_string(*meta, "uid").value_or("") == pod_uid;
    if (!ours || !same_pod) return result(ProgressOutcome::kForbidden);
    return result(ProgressOutcome::kOk);
  }

  ProgressResult apply(const std::string& ns, const std::string& name,
                       const json::object& trainer_status) const {
    auto trainjobs = client->resource_for("trainer.kubeflow.org/v1alpha1", "TrainJob", call());
    if (!trainjobs) return result(ProgressOutcome::kInternal);
    kube::ApplyOptions options;
    static_cast<kube::CallOptions&>(options) = call();
    options.field_manager = kTrainerStatusFieldManager;
    options.force = true;
    options.subresource = "status";
    const json::object body{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                            {"kind", "TrainJob"},
                            {"metadata", json::object{{"name", name}, {"namespace", ns}}},
                            {"status", json::object{{"trainerStatus", trainer_status}}}};
    auto applied = client->apply(*trainjobs, ns, body, options);
    if (applied) return result(ProgressOutcome::kOk);
    const auto& error = applied.error();
    if (error.code == ErrorCode::kNotFound) return result(ProgressOutcome::kNotFound);
    if (error.http_status == 422 || error.http_status == 400) {
      return result(ProgressOutcome::kInvalid, error.message);
    }
    return result(ProgressOutcome::kInternal);
  }
};

}  // namespace

serving::ProgressBackend cluster_progress_backend(kube::Client& client, kube::CancelToken cancel,
                                                  std::chrono::milliseconds timeout) {
  auto backend = std::make_shared<Backend>(Backend{&client, std::move(cancel), timeout});
  serving::ProgressBackend out;
  out.authenticate = [backend](const std::string& token, const std::string& ns,
                               const std::string& name) {
    return backend->authenticate(token, ns, name);
  };
  out.apply = [backend](const std::string& ns, const std::string& name,
                        const json::object& trainer_status) {
    return backend->apply(ns, name, trainer_status);
  };
  return out;
}

}  // namespace trainer::controller
