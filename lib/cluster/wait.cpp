// SPDX-License-Identifier: Apache-2.0
// `wait`: kubectl wait --for=condition=<type>[=<status>] on one TrainJob: check the object,
// then watch it (fieldSelector metadata.name) until the condition holds, the TrainJob fails,
// disappears, or the timeout passes.
#include "cluster/cluster_internal.hpp"
#include "cluster/operation_token.hpp"
#include "trainer/json_path.hpp"

#include <boost/json/array.hpp>

#include <optional>
#include <string>
#include <utility>

namespace trainer::cluster {
namespace {

namespace json = boost::json;
using trainer::find_array;
using trainer::find_int;
using trainer::find_object;
using trainer::find_string;

enum class Verdict { kNotMet, kMet, kFailed };

// The condition of `type` (case-insensitive) that counts for the object's generation: one
// whose observedGeneration (else status.observedGeneration) is older does not.
const json::object* current_condition(const json::object& object, std::string_view type) {
  const auto* status = find_object(object, "status");
  const auto* conditions = status != nullptr ? find_array(*status, "conditions") : nullptr;
  if (conditions == nullptr) return nullptr;
  const auto* meta = find_object(object, "metadata");
  const auto generation = meta != nullptr ? find_int(*meta, "generation") : std::nullopt;
  for (const auto& item : *conditions) {
    const auto* condition = item.if_object();
    if (condition == nullptr) continue;
    if (!detail::iequals(find_string(*condition, "type").value_or(""), type)) continue;
    auto observed = find_int(*condition, "observedGeneration");
    if (!observed) observed = find_int(*status, "observedGeneration");
    if (generation && observed && *observed < *generation) return nullptr;
    return condition;
  }
  return nullptr;
}

Verdict judge(const json::object& object, std::string_view type, std::string_view status,
              std::string* failure) {
  if (const auto* condition = current_condition(object, type)) {
    if (detail::iequals(find_string(*condition, "status").value_or(""), status)) {
      return Verdict::kMet;
    }
  }
  if (detail::iequals(type, "Failed")) return Verdict::kNotMet;
  if (const auto* failed = current_condition(object, "Failed")) {
    if (detail::iequals(find_string(*failed, "status").value_or(""), "True")) {
      const auto reason = find_string(*failed, "reason").value_or("");
      const auto message = find_string(*failed, "message").value_or("");
      *failure = reason.empty() ? message : message.empty() ? reason : reason + ": " + message;
      return Verdict::kFailed;
    }
  }
  return Verdict::kNotMet;
}

Error failed_error(std::string_view ns, std::string_view name, const std::string& why) {
  return Error(ErrorCode::kFailed, "TrainJob " + std::string(ns) + "/" + std::string(name) +
                                       " failed" + (why.empty() ? "" : ": " + why));
}

Error gone_error(std::string_view name) {
  Error error(ErrorCode::kNotFound,
              "trainjobs.trainer.kubeflow.org \"" + std::string(name) + "\" not found");
  error.reason = "NotFound";
  return error;
}

}  // namespace

Result<boost::json::object> wait(kube::Client& client, std::string_view ns, std::string_view name,
                                 std::string_view condition, std::string_view status,
                                 const WaitOptions& options) {
  // kubectl: a negative timeout means a week.
  const std::chrono::milliseconds wait_timeout = options.wait_timeout < std::chrono::milliseconds(0)
                                                     ? std::chrono::hours(24 * 7)
                                                     : options.wait_timeout;
  const auto deadline = detail::OperationToken::Clock::now() + wait_timeout;
  const std::string the_ns = ns.empty() ? client.default_namespace() : std::string(ns);
  const std::string target = "trainjobs/" + std::string(name);
  std::string failure;

  auto object = get(client, Kind::kTrainJob, the_ns, name, options);
  if (!object) return object;
  switch (judge(*object, condition, status, &failure)) {
    case Verdict::kMet: return object;
    case Verdict::kFailed: return tl::unexpected(failed_error(the_ns, name, failure));
    case Verdict::kNotMet: break;
  }
  if (wait_timeout == std::chrono::milliseconds(0)) {
    return fail(ErrorCode::kTimeout, "condition not met for " + target);
  }

  detail::OperationToken operation(options.cancel, deadline);
  WatchOptions watch_options;
  watch_options.cancel = operation.token();
  watch_options.timeout = options.timeout;
  watch_options.name = std::string(name);
  if (const auto* meta = find_object(*object, "metadata")) {
    watch_options.resource_version = find_string(*meta, "resourceVersion").value_or("");
  }
  std::optional<Result<json::object>> outcome;
  auto watched = watch(client, the_ns, watch_options, [&](const kube::WatchEvent& event) {
    if (event.type == kube::WatchEventType::kBookmark) return true;
    if (event.type == kube::WatchEventType::kDeleted) {
      outcome = tl::unexpected(gone_error(name));
      return false;
    }
    switch (judge(event.object, condition, status, &failure)) {
      case Verdict::kMet: outcome = event.object; return false;
      case Verdict::kFailed:
        outcome = tl::unexpected(failed_error(the_ns, name, failure));
        return false;
      case Verdict::kNotMet: return true;
    }
    return true;
  });
  if (outcome) return std::move(*outcome);
  if (operation.expired()) {
    return fail(ErrorCode::kTimeout, "timed out waiting for the condition on " + target);
  }
  if (!watched) return tl::unexpected(std::move(watched.error()));
  return fail(ErrorCode::kInternal, "the watch of " + target + " ended without an answer");
}

}  // namespace trainer::cluster
