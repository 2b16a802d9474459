// SPDX-License-Identifier: Apache-2.0
// `wait`: kubectl wait --for=condition=<type>[=<status>] on one TrainJob: check the object,
// then watch it (fieldSelector metadata.name) until the condition holds, the TrainJob fails,
// disappears, or the timeout passes. `wait_deleted`: kubectl wait --for=delete on one object of
// any resource.
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

// kubectl: a negative timeout means a week.
std::chrono::milliseconds effective(std::chrono::milliseconds timeout) {
  return timeout < std::chrono::milliseconds(0) ? std::chrono::hours(24 * 7) : timeout;
}

}  // namespace

Result<boost::json::object> wait(kube::Client& client, std::string_view ns, std::string_view name,
                                 std::string_view condition, std::string_view status,
                                 const WaitOptions& options) {
  const std::chrono::milliseconds wait_timeout = effective(options.wait_timeout);
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

Result<bool> wait_deleted(kube::Client& client, const kube::Resource& resource, std::string_view ns,
                          std::string_view name, const WaitOptions& options) {
  const std::chrono::milliseconds wait_timeout = effective(options.wait_timeout);
  const auto deadline = detail::OperationToken::Clock::now() + wait_timeout;
  const std::string the_ns = !resource.namespaced ? std::string()
                             : ns.empty()         ? client.default_namespace()
                                                  : std::string(ns);
  const std::string target = resource.resource + "/" + std::string(name);

  auto object = client.get(resource, the_ns, name, options);
  if (!object) {
    if (object.error().code == ErrorCode::kNotFound) return false;
    return tl::unexpected(std::move(object.error()));
  }
  if (wait_timeout == std::chrono::milliseconds(0)) {
    return fail(ErrorCode::kTimeout, "condition not met for " + target);
  }
  const auto* meta = find_object(*object, "metadata");
  const std::string uid = meta != nullptr ? find_string(*meta, "uid").value_or("") : "";

  detail::OperationToken operation(options.cancel, deadline);
  kube::WatchOptions watch_options;
  watch_options.cancel = operation.token();
  watch_options.timeout = options.timeout;
  watch_options.field_selector = "metadata.name=" + std::string(name);
  watch_options.resource_version =
      meta != nullptr ? find_string(*meta, "resourceVersion").value_or("") : "";
  bool deleted = false;
  auto watched = client.watch(resource, the_ns, watch_options, [&](const kube::WatchEvent& event) {
    const auto* event_meta = find_object(event.object, "metadata");
    const std::string event_uid =
        event_meta != nullptr ? find_string(*event_meta, "uid").value_or("") : "";
    // The object waited for is gone: deleted, or replaced by another of the same name.
    deleted = event.type == kube::WatchEventType::kDeleted ||
              (event.type != kube::WatchEventType::kBookmark && !uid.empty() &&
               !event_uid.empty() && event_uid != uid);
    return !deleted;
  });
  if (deleted) return true;
  if (operation.expired()) {
    return fail(ErrorCode::kTimeout, "timed out waiting for the condition on " + target);
  }
  if (!watched) return tl::unexpected(std::move(watched.error()));
  return fail(ErrorCode::kInternal, "the watch of " + target + " ended without an answer");
}

}  // namespace trainer::cluster
