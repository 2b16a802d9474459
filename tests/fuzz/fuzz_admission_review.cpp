// SPDX-License-Identifier: Apache-2.0
//
// fuzz_admission_review: what the API server (or anyone who reaches the webhook port) posts to
// the admission webhooks is untrusted. The first byte picks the handler (the four upstream paths
// and the OptimizationJob one), the rest is the request body; the cluster reader serves the
// built-in ClusterTrainingRuntimes and a JobSet whose node job is active. Checks: no crash; the
// answer is HTTP 200 with an AdmissionReview of admission.k8s.io/v1(beta1) whose `response`
// has a boolean `allowed`, a `status` with a code, valid UTF-8 throughout; a refusal has a
// message; a patch is base64 of a JSON array.
#include "controller/admission_webhooks.hpp"
#include "fuzz_common.hpp"
#include "trainer/base64.hpp"
#include "trainer/codec.hpp"
#include "trainer/runtimes.hpp"

#include <boost/json/parse.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace {

namespace json = boost::json;
using trainer::fuzz::fail_check;

class Reader final : public trainer::controller::WebhookReader {
 public:
  trainer::Result<std::optional<json::value>> runtime(const trainer::TrainJob& job) override {
    if (job.spec.runtime_ref.kind.value_or("") != "ClusterTrainingRuntime") return std::nullopt;
    auto yaml = trainer::find_builtin_runtime(job.spec.runtime_ref.name);
    if (!yaml) return std::nullopt;
    auto docs = trainer::parse_documents(*yaml);
    if (!docs || docs->empty()) fail_check("built-in runtime", job.spec.runtime_ref.name);
    return docs->front();
  }
  std::optional<json::value> find(std::string_view, std::string_view kind, std::string_view,
                                  std::string_view name) override {
    if (kind != "JobSet") return std::nullopt;
    return json::parse(R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":
      {"name":")" + std::string(name) +
                       R"("},"status":{"replicatedJobsStatus":[{"name":"node",
      "active":1}]}})");
  }
  std::optional<trainer::Error> lookup_error() override { return std::nullopt; }
};

const trainer::controller::AdmissionWebhooks& webhooks() {
  static const trainer::controller::AdmissionWebhooks hooks([] {
    trainer::controller::WebhookOptions options;
    options.reader = [] { return std::make_unique<Reader>(); };
    options.now = [] { return trainer::controller::Clock::time_point(std::chrono::seconds(0)); };
    return options;
  }());
  return hooks;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  trainer::serving::Request request;
  request.method = "POST";
  request.headers = {{"Content-Type", "application/json"}};
  request.body.assign(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto& hooks = webhooks();
  trainer::serving::Response answer;
  switch (data[0] % 5) {
    case 0: answer = hooks.validate_train_job(request); break;
    case 1: answer = hooks.mutate_train_job(request); break;
    case 2: answer = hooks.validate_training_runtime(request); break;
    case 3: answer = hooks.validate_cluster_training_runtime(request); break;
    default: answer = hooks.validate_optimization_job(request); break;
  }
  if (answer.status != 200) fail_check("HTTP status", std::to_string(answer.status));
  trainer::fuzz::check_utf8("answer", answer.body);
  json::value doc;
  try {
    doc = json::parse(answer.body);
  } catch (const std::exception&) {
    fail_check("answer is not JSON", answer.body);
  }
  const auto* review = doc.if_object();
  if (review == nullptr || review->if_contains("kind") == nullptr ||
      review->at("kind") != "AdmissionReview") {
    fail_check("not an AdmissionReview", answer.body);
  }
  const auto* response = review->if_contains("response");
  if (response == nullptr || !response->is_object()) fail_check("no response", answer.body);
  const auto& r = response->get_object();
  if (r.if_contains("allowed") == nullptr || !r.at("allowed").is_bool()) {
    fail_check("allowed is not a boolean", answer.body);
  }
  const auto* status = r.if_contains("status");
  if (status == nullptr || !status->is_object() ||
      status->get_object().if_contains("code") == nullptr) {
    fail_check("no status code", answer.body);
  }
  if (!r.at("allowed").get_bool()) {
    const auto* message = status->get_object().if_contains("message");
    if (message == nullptr || !message->is_string() || message->get_string().empty()) {
      fail_check("a refusal without a message", answer.body);
    }
  }
  if (const auto* patch = r.if_contains("patch")) {
    if (!patch->is_string()) fail_check("patch is not a string", answer.body);
    auto bytes = trainer::base64_decode(patch->get_string());
    if (!bytes) fail_check("patch is not base64", answer.body);
    try {
      if (!json::parse(*bytes).is_array()) fail_check("patch is not a JSON array", *bytes);
    } catch (const std::exception&) {
      fail_check("patch is not JSON", *bytes);
    }
  }
  return 0;
}
