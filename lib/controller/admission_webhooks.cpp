// SPDX-License-Identifier: Apache-2.0
//
// The admission webhooks (admission_webhooks.hpp): read the AdmissionReview, decode and default
// the object as the API server handed it, admit it through lib/admission, answer as
// controller-runtime does.
#include "controller/admission_webhooks.hpp"

#include "api/readers.hpp"
#include "api/text_position.hpp"
#include "controller/cluster_lookup.hpp"
#include "controller/controller_internal.hpp"
#include "serving/https_server.hpp"
#include "trainer/admission.hpp"
#include "trainer/base64.hpp"
#include "trainer/codec.hpp"
#include "trainer/defaults.hpp"
#include "trainer/json_path.hpp"
#include "trainer/render.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <chrono>
#include <utility>

namespace trainer::controller {
namespace {

namespace json = boost::json;
using serving::Request;
using serving::Response;
using trainer::find_object;
using trainer::find_string;

constexpr std::string_view kReviewKind = "AdmissionReview";
constexpr std::string_view kReviewV1 = "admission.k8s.io/v1";
constexpr std::string_view kReviewV1beta1 = "admission.k8s.io/v1beta1";

// A review that cannot be answered by admission: controller-runtime's `Errored(code, err)`.
struct ReviewError {
  int code = 400;
  std::string message;
};

struct Review {
  std::string api_version = std::string(kReviewV1);
  std::string uid;
  std::string operation;
  std::string ns;
  std::string name;
  json::value object;
  json::value old_object;  // null unless UPDATE
};

// metav1.Status as controller-runtime writes it into the AdmissionResponse.
json::object status(int code, std::string_view reason, std::string_view message) {
  json::object s;
  s["metadata"] = json::object();
  if (!message.empty()) s["message"] = message;
  if (!reason.empty()) s["reason"] = reason;
  s["code"] = code;
  return s;
}

Response review_answer(const std::string& api_version, const std::string& uid,
                       json::object response) {
  json::object review;
  review["kind"] = kReviewKind;
  review["apiVersion"] = api_version;
  json::object ordered;  // uid first, as controller-runtime writes it
  ordered["uid"] = uid;
  for (auto& entry : response) ordered[entry.key()] = std::move(entry.value());
  review["response"] = std::move(ordered);
  Response out;
  out.status = 200;
  out.content_type = "application/json";
  out.body = json::serialize(review);
  return out;
}

Response errored(const std::string& api_version, const std::string& uid, const ReviewError& e) {
  json::object response;
  response["allowed"] = false;
  response["status"] = status(e.code, {}, e.message);
  return review_answer(api_version, uid, std::move(response));
}

void add_warnings(json::object& response, const std::vector<std::string>& warnings) {
  if (warnings.empty()) return;
  json::array list;
  for (const auto& w : warnings) list.emplace_back(w);
  response["warnings"] = std::move(list);
}

Response allowed(const Review& review, const std::vector<std::string>& warnings) {
  json::object response;
  response["allowed"] = true;
  response["status"] = status(200, {}, {});
  add_warnings(response, warnings);
  return review_answer(review.api_version, review.uid, std::move(response));
}

// A validator's error list: controller-runtime's `Denied(errs.ToAggregate().Error())` (403,
// Forbidden), with `details` naming the object and one cause per field error.
Response denied(const Review& review, std::string_view kind, const std::vector<FieldError>& errors,
                const std::vector<std::string>& warnings) {
  json::object s = status(403, "Forbidden", Error::invalid(errors).message);
  json::array causes;
  for (const auto& e : errors) {
    causes.emplace_back(
        json::object{{"reason", go_name(e.type)}, {"message", e.body()}, {"field", e.path}});
  }
  s["details"] = json::object{
      {"name", review.name}, {"group", kGroup}, {"kind", kind}, {"causes", std::move(causes)}};
  json::object response;
  response["allowed"] = false;
  response["status"] = std::move(s);
  add_warnings(response, warnings);
  return review_answer(review.api_version, review.uid, std::move(response));
}

// A plain error of a validator (`unsupported runtime: ...`): `Denied(err.Error())`.
Response denied_message(const Review& review, const std::string& message,
                        const std::vector<std::string>& warnings) {
  json::object response;
  response["allowed"] = false;
  response["status"] = status(403, "Forbidden", message);
  add_warnings(response, warnings);
  return review_answer(review.api_version, review.uid, std::move(response));
}

using trainer::string_at;

// The review of `request` for objects of `kind` (trainer.kubeflow.org): ReviewError when the
// request is not an AdmissionReview of that kind. `api_version` gets the review's version as
// soon as it is known, so that even an error answers in it.
tl::expected<Review, ReviewError> read_review(const Request& request, std::string_view kind,
                                              std::string& api_version, std::string& uid) {
  if (request.body.empty()) return tl::unexpected(ReviewError{400, "request body is empty"});
  if (request.body.size() > kAdmissionReviewLimit) {
    return tl::unexpected(ReviewError{413, "request entity is too large; limit is " +
                                               std::to_string(kAdmissionReviewLimit) + " bytes"});
  }
  const std::string_view content_type = request.header("Content-Type");
  const std::string_view media = content_type.substr(0, content_type.find(';'));
  if (media != "application/json") {
    return tl::unexpected(ReviewError{
        400, "contentType=" + std::string(content_type) + ", expected application/json"});
  }
  if (auto bad = trainer::detail::find_invalid_utf8(request.body)) {
    return tl::unexpected(ReviewError{
        400, "unable to decode the request: invalid UTF-8 at byte " + std::to_string(*bad)});
  }
  DecodeOptions limits;
  limits.max_document_bytes = kAdmissionReviewLimit;
  auto parsed = trainer::detail::read_json(request.body, limits);
  if (!parsed) {
    return tl::unexpected(
        ReviewError{400, "unable to decode the request: " + parsed.error().message});
  }
  if (!parsed->is_object()) {
    return tl::unexpected(ReviewError{400, "unable to decode the request: not an object"});
  }
  auto& doc = parsed->get_object();
  const std::string version = string_at(doc, "apiVersion");
  if (string_at(doc, "kind") != kReviewKind ||
      (version != kReviewV1 && version != kReviewV1beta1)) {
    return tl::unexpected(ReviewError{
        400,
        "unable to decode the request: expected an AdmissionReview of admission.k8s.io/v1, "
        "got kind \"" +
            string_at(doc, "kind") + "\" of apiVersion \"" + version + "\""});
  }
  api_version = version;
  auto* req = doc.if_contains("request");
  if (req == nullptr || !req->is_object()) {
    return tl::unexpected(
        ReviewError{400, "unable to decode the request: request: Required value"});
  }
  auto& r = req->get_object();
  Review review;
  review.api_version = version;
  review.uid = string_at(r, "uid");
  uid = review.uid;
  if (review.uid.empty()) {
    return tl::unexpected(ReviewError{400, "request.uid: Required value"});
  }
  review.operation = string_at(r, "operation");
  review.ns = string_at(r, "namespace");
  review.name = string_at(r, "name");
  if (review.operation == "DELETE" || review.operation == "CONNECT") return review;
  if (review.operation != "CREATE" && review.operation != "UPDATE") {
    return tl::unexpected(ReviewError{
        400, "request.operation: Unsupported value: \"" + review.operation +
                 "\": supported values: \"CREATE\", \"UPDATE\", \"DELETE\", \"CONNECT\""});
  }
  const json::object* gvk = find_object(r, "kind");
  const std::string group = gvk != nullptr ? string_at(*gvk, "group") : std::string();
  const std::string got_kind = gvk != nullptr ? string_at(*gvk, "kind") : std::string();
  if (group != kGroup || got_kind != kind) {
    return tl::unexpected(ReviewError{
        400, "request.kind: Invalid value: \"" + got_kind + (group.empty() ? "" : ".") + group +
                 "\": this webhook admits " + std::string(kind) + "." + std::string(kGroup)});
  }
  auto take = [&r](std::string_view key, json::value& into) {
    if (auto* v = r.if_contains(key); v != nullptr && v->is_object()) into = std::move(*v);
  };
  take("object", review.object);
  if (review.object.is_null()) {
    return tl::unexpected(ReviewError{400, "request.object: Required value"});
  }
  if (review.operation == "UPDATE") {
    take("oldObject", review.old_object);
    if (review.old_object.is_null()) {
      return tl::unexpected(ReviewError{400, "request.oldObject: Required value"});
    }
  }
  return review;
}

// Decodes and defaults an object of the review, as admission decodes its inputs. A namespaced
// object the API server sent without a namespace gets the request's.
template <class T, class Decode>
tl::expected<T, ReviewError> decode(const json::value& object, Decode decoder, const char* which) {
  auto decoded = decoder(object);
  if (!decoded) {
    return tl::unexpected(ReviewError{
        400, std::string("unable to decode ") + which + ": " + decoded.error().message});
  }
  apply_defaults(decoded->object);
  return std::move(decoded->object);
}

template <class T>
void default_namespace(T& object, const Review& review) {
  if (!object.metadata.namespace_ || object.metadata.namespace_->empty()) {
    object.metadata.namespace_ = review.ns.empty() ? std::string("default") : review.ns;
  }
}

// Runs `handle(review)` for the review of `request`, answering errors of the review itself.
template <class Handle>
Response serve(const Request& request, std::string_view kind, Handle handle) {
  std::string api_version(kReviewV1);
  std::string uid;
  auto review = read_review(request, kind, api_version, uid);
  if (!review) return errored(api_version, uid, review.error());
  if (review->operation == "DELETE" || review->operation == "CONNECT") {
    return allowed(*review, {});
  }
  return handle(*review);
}

// The answer of a TrainJob or OptimizationJob admission.
Response answer(const Review& review, std::string_view kind, Result<ValidationResult> admitted,
                WebhookReader& reader) {
  if (auto failed = reader.lookup_error()) {
    return errored(review.api_version, review.uid, ReviewError{500, failed->message});
  }
  if (!admitted) {
    Error& e = admitted.error();
    // A runtime that does not exist: the webhook's `spec.runtimeRef` field error.
    if (!e.fields.empty()) return denied(review, kind, e.fields, {});
    // `unsupported runtime: <key>`.
    if (e.code == ErrorCode::kInvalid) return denied_message(review, e.message, {});
    return errored(review.api_version, review.uid, ReviewError{500, e.message});
  }
  if (!admitted->ok()) return denied(review, kind, admitted->errors, admitted->warnings);
  return allowed(review, admitted->warnings);
}

// The scope of one TrainJob admission: its live runtime, decoded.
struct RuntimeScope {
  std::optional<TrainingRuntime> training_runtime;
  std::optional<ClusterTrainingRuntime> cluster_training_runtime;
  AdmissionScope scope;
};

tl::expected<void, ReviewError> load_runtime(WebhookReader& reader, const TrainJob& job,
                                             RuntimeScope& out) {
  auto fetched = reader.runtime(job);
  if (!fetched) return tl::unexpected(ReviewError{500, fetched.error().message});
  if (!*fetched) return {};
  if (job.spec.runtime_ref.kind.value_or("") == kTrainingRuntimeKind) {
    auto rt = decode<TrainingRuntime>(**fetched, decode_training_runtime, "the TrainingRuntime");
    if (!rt) return tl::unexpected(ReviewError{500, rt.error().message});
    out.training_runtime = std::move(*rt);
    out.scope.training_runtimes.push_back(&*out.training_runtime);
  } else {
    auto rt = decode<ClusterTrainingRuntime>(**fetched, decode_cluster_training_runtime,
                                             "the ClusterTrainingRuntime");
    if (!rt) return tl::unexpected(ReviewError{500, rt.error().message});
    out.cluster_training_runtime = std::move(*rt);
    out.scope.cluster_training_runtimes.push_back(&*out.cluster_training_runtime);
  }
  return {};
}

RenderContext admission_context(WebhookReader& reader) {
  RenderContext ctx;
  ctx.lookup = [&reader](std::string_view api_version, std::string_view kind, std::string_view ns,
                         std::string_view name) {
    return reader.find(api_version, kind, ns, name);
  };
  return ctx;
}

class ClusterReader final : public WebhookReader {
 public:
  // Each read of a review gets this long, so that the answer comes before the API server's
  // webhook timeout (10 s by default) ends the call.
  static constexpr std::chrono::milliseconds kReadTimeout{std::chrono::seconds(8)};

  ClusterReader(kube::Client& client, kube::CancelToken cancel)
      : call_{std::move(cancel), kReadTimeout}, lookup_(client, call_) {}

  Result<std::optional<json::value>> runtime(const TrainJob& job) override {
    return detail::fetch_runtime(lookup_, job, job.metadata.namespace_.value_or("default"));
  }
  std::optional<json::value> find(std::string_view api_version, std::string_view kind,
                                  std::string_view ns, std::string_view name) override {
    return lookup_.find(api_version, kind, ns, name);
  }
  std::optional<Error> lookup_error() override { return lookup_.error(); }

 private:
  kube::CallOptions call_;
  detail::ClusterLookup lookup_;
};

// The JSON Patch of upstream's defaulter (reference 2.2) on the TrainJob `object` as sent, the
// old one on UPDATE (null on CREATE): each runtime patch's `time`.
json::array runtime_patch_times(const json::value& object, const json::value& old_object,
                                const std::string& now) {
  json::array ops;
  const auto* spec = object.is_object() ? find_object(object.get_object(), "spec") : nullptr;
  const json::array* patches =
      spec != nullptr ? trainer::find_array(*spec, "runtimePatches") : nullptr;
  if (patches == nullptr) return ops;
  std::vector<std::pair<std::string, json::object>> old_by_manager;
  if (!old_object.is_null()) {
    const auto* old_spec = find_object(old_object.get_object(), "spec");
    const json::array* old_patches =
        old_spec != nullptr ? trainer::find_array(*old_spec, "runtimePatches") : nullptr;
    if (old_patches != nullptr) {
      for (const auto& p : *old_patches) {
        if (!p.is_object()) continue;
        const std::string manager = string_at(p.get_object(), "manager");
        // Go's map: a later patch of the same manager wins.
        bool replaced = false;
        for (auto& [m, o] : old_by_manager) {
          if (m == manager) {
            o = p.get_object();
            replaced = true;
          }
        }
        if (!replaced) old_by_manager.emplace_back(manager, p.get_object());
      }
    }
  }
  for (std::size_t i = 0; i < patches->size(); ++i) {
    if (!(*patches)[i].is_object()) continue;
    const json::object& patch = (*patches)[i].get_object();
    const json::value* have = patch.if_contains("time");
    const bool has_time = have != nullptr && !have->is_null();
    json::value want;
    const json::object* old = nullptr;
    if (!old_object.is_null()) {
      for (const auto& [m, o] : old_by_manager) {
        if (m == string_at(patch, "manager")) old = &o;
      }
    }
    if (old != nullptr) {
      json::object old_cmp = *old;
      json::object new_cmp = patch;
      old_cmp.erase("time");
      new_cmp.erase("time");
      if (old_cmp == new_cmp) {
        const json::value* old_time = old->if_contains("time");
        want = old_time != nullptr ? *old_time : json::value();
      } else {
        want = json::string(now);
      }
    } else {
      want = has_time ? *have : json::value(json::string(now));
    }
    const std::string path = "/spec/runtimePatches/" + std::to_string(i) + "/time";
    // controller-runtime drops the removals of its patch: a time the old patch lacked stays.
    if (want.is_null()) continue;
    if (has_time && *have == want) continue;
    ops.emplace_back(
        json::object{{"op", has_time ? "replace" : "add"}, {"path", path}, {"value", want}});
  }
  return ops;
}

// Admits `job` (against `old_job` on UPDATE) with the runtime `runtime_of` names, read live from
// the cluster: the one admission path of a TrainJob, and of an OptimizationJob through its
// template.
template <typename Job>
Response admit_job(const WebhookOptions& options, const Review& review, std::string_view kind,
                   const Job& job, const std::optional<Job>& old_job, const TrainJob& runtime_of) {
  if (!options.reader) {
    return errored(review.api_version, review.uid,
                   ReviewError{500, "the " + std::string(kind) + " webhook has no cluster reader"});
  }
  auto reader = options.reader();
  RuntimeScope runtime;
  if (auto loaded = load_runtime(*reader, runtime_of, runtime); !loaded) {
    return errored(review.api_version, review.uid, loaded.error());
  }
  const RenderContext ctx = admission_context(*reader);
  const Framework* framework = options.framework.get();
  auto admitted =
      old_job ? admit_update(*old_job, job, runtime.scope, ctx, framework, MissingRuntime::kFail)
              : admit_object(job, runtime.scope, ctx, framework, MissingRuntime::kFail);
  return answer(review, kind, std::move(admitted), *reader);
}

}  // namespace

std::unique_ptr<WebhookReader> cluster_reader(kube::Client& client, kube::CancelToken cancel) {
  return std::make_unique<ClusterReader>(client, std::move(cancel));
}

AdmissionWebhooks::AdmissionWebhooks(WebhookOptions options) : options_(std::move(options)) {}

Response AdmissionWebhooks::validate_train_job(const Request& request) const {
  return serve(request, kTrainJobKind, [&](const Review& review) {
    auto job = decode<TrainJob>(review.object, decode_train_job, "the TrainJob");
    if (!job) return errored(review.api_version, review.uid, job.error());
    default_namespace(*job, review);
    std::optional<TrainJob> old_job;
    if (!review.old_object.is_null()) {
      auto old = decode<TrainJob>(review.old_object, decode_train_job, "the old TrainJob");
      if (!old) return errored(review.api_version, review.uid, old.error());
      default_namespace(*old, review);
      old_job = std::move(*old);
    }
    return admit_job(options_, review, kTrainJobKind, *job, old_job, *job);
  });
}

Response AdmissionWebhooks::validate_optimization_job(const Request& request) const {
  return serve(request, kOptimizationJobKind, [&](const Review& review) {
    auto job =
        decode<OptimizationJob>(review.object, decode_optimization_job, "the OptimizationJob");
    if (!job) return errored(review.api_version, review.uid, job.error());
    default_namespace(*job, review);
    std::optional<OptimizationJob> old_job;
    if (!review.old_object.is_null()) {
      auto old = decode<OptimizationJob>(review.old_object, decode_optimization_job,
                                         "the old OptimizationJob");
      if (!old) return errored(review.api_version, review.uid, old.error());
      default_namespace(*old, review);
      old_job = std::move(*old);
    }
    // The template's runtime, looked up as a trial TrainJob's in the OptimizationJob's namespace.
    TrainJob trial;
    trial.metadata.namespace_ = job->metadata.namespace_;
    trial.spec = job->spec.train_job_template.spec;
    return admit_job(options_, review, kOptimizationJobKind, *job, old_job, trial);
  });
}

Response AdmissionWebhooks::validate_training_runtime(const Request& request) const {
  return serve(request, kTrainingRuntimeKind, [&](const Review& review) {
    auto rt =
        decode<TrainingRuntime>(review.object, decode_training_runtime, "the TrainingRuntime");
    if (!rt) return errored(review.api_version, review.uid, rt.error());
    default_namespace(*rt, review);
    ValidationResult result;
    if (!review.old_object.is_null()) {
      auto old = decode<TrainingRuntime>(review.old_object, decode_training_runtime,
                                         "the old TrainingRuntime");
      if (!old) return errored(review.api_version, review.uid, old.error());
      default_namespace(*old, review);
      result = admit_update(*old, *rt);
    } else {
      result = admit_object(*rt);
    }
    if (!result.ok()) return denied(review, kTrainingRuntimeKind, result.errors, result.warnings);
    return allowed(review, result.warnings);
  });
}

Response AdmissionWebhooks::validate_cluster_training_runtime(const Request& request) const {
  return serve(request, kClusterTrainingRuntimeKind, [&](const Review& review) {
    auto rt = decode<ClusterTrainingRuntime>(review.object, decode_cluster_training_runtime,
                                             "the ClusterTrainingRuntime");
    if (!rt) return errored(review.api_version, review.uid, rt.error());
    ValidationResult result;
    if (!review.old_object.is_null()) {
      auto old = decode<ClusterTrainingRuntime>(review.old_object, decode_cluster_training_runtime,
                                                "the old ClusterTrainingRuntime");
      if (!old) return errored(review.api_version, review.uid, old.error());
      result = admit_update(*old, *rt);
    } else {
      result = admit_object(*rt);
    }
    if (!result.ok()) {
      return denied(review, kClusterTrainingRuntimeKind, result.errors, result.warnings);
    }
    return allowed(review, result.warnings);
  });
}

Response AdmissionWebhooks::mutate_train_job(const Request& request) const {
  return serve(request, kTrainJobKind, [&](const Review& review) {
    // The object must be a TrainJob (controller-runtime decodes it first: 400 otherwise).
    if (auto job = decode<TrainJob>(review.object, decode_train_job, "the TrainJob"); !job) {
      return errored(review.api_version, review.uid, job.error());
    }
    if (!review.old_object.is_null()) {
      if (auto old = decode<TrainJob>(review.old_object, decode_train_job, "the old TrainJob");
          !old) {
        return errored(review.api_version, review.uid, old.error());
      }
    }
    const Clock::time_point now = options_.now ? options_.now() : Clock::now();
    const json::array ops =
        runtime_patch_times(review.object, review.old_object, detail::format_time(now));
    json::object response;
    response["allowed"] = true;
    response["status"] = status(200, {}, {});
    if (!ops.empty()) {
      response["patchType"] = "JSONPatch";
      response["patch"] = trainer::base64_encode(json::serialize(ops));
    }
    return review_answer(review.api_version, review.uid, std::move(response));
  });
}

std::vector<serving::Route> AdmissionWebhooks::routes() const {
  std::vector<serving::Route> out;
  auto add = [&](std::string_view path,
                 Response (AdmissionWebhooks::*handler)(const Request&) const) {
    serving::Route route;
    route.method = "POST";
    route.pattern = std::string(path);
    route.handler = [this, handler](const Request& r) { return (this->*handler)(r); };
    route.body_limit = kAdmissionReviewLimit;
    route.too_large = [](const Request&) {
      return errored(std::string(kReviewV1), {},
                     ReviewError{413, "request entity is too large; limit is " +
                                          std::to_string(kAdmissionReviewLimit) + " bytes"});
    };
    out.push_back(std::move(route));
  };
  add(kValidateTrainJobPath, &AdmissionWebhooks::validate_train_job);
  add(kValidateTrainingRuntimePath, &AdmissionWebhooks::validate_training_runtime);
  add(kValidateClusterTrainingRuntimePath, &AdmissionWebhooks::validate_cluster_training_runtime);
  add(kMutateTrainJobPath, &AdmissionWebhooks::mutate_train_job);
  add(kValidateOptimizationJobPath, &AdmissionWebhooks::validate_optimization_job);
  return out;
}

}  // namespace trainer::controller
