// SPDX-License-Identifier: Apache-2.0
// `logs`: the pods of a TrainJob's JobSet (label jobset.sigs.k8s.io/jobset-name), narrowed to a
// replicated job and a node index, read one after another or, when followed, concurrently
// (one thread per pod, all bounded by one cancellation).
#include "cluster/cluster_internal.hpp"
#include "cluster/operation_token.hpp"
#include "trainer/json_path.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace trainer::cluster {
namespace {

namespace json = boost::json;
using trainer::find_array;
using trainer::find_object;
using trainer::find_string;

// JobSet's pod labels (JobSet v0.12 `jobset.sigs.k8s.io/*`) and the Job controller's index.
constexpr std::string_view kJobSetNameLabel = "jobset.sigs.k8s.io/jobset-name";
constexpr std::string_view kReplicatedJobLabel = "jobset.sigs.k8s.io/replicatedjob-name";
constexpr std::string_view kJobIndexLabel = "jobset.sigs.k8s.io/job-index";
constexpr std::string_view kCompletionIndex = "batch.kubernetes.io/job-completion-index";
// The trainer's replicated job and container (reference 1.12).
constexpr std::string_view kTrainerJob = "node";
constexpr std::string_view kTrainerContainer = "node";

struct Pod {
  std::string name;
  std::string replicated_job;
  std::optional<long> job_index;
  std::optional<long> completion_index;
  std::string container;
};

std::optional<long> parse_index(const std::optional<std::string>& text) {
  if (!text || text->empty() || text->find_first_not_of("0123456789") != std::string::npos ||
      text->size() > 9) {
    return std::nullopt;
  }
  return std::stol(*text);
}

// A label, else the annotation of the same key (the completion index is an annotation
// everywhere and a label only where the PodIndexLabel feature is on).
std::optional<std::string> label_or_annotation(const json::object& meta, std::string_view key) {
  for (const char* where : {"labels", "annotations"}) {
    if (const auto* map = find_object(meta, where)) {
      if (auto value = find_string(*map, key)) return value;
    }
  }
  return std::nullopt;
}

Pod pod_of(const json::object& object, const std::string& container) {
  Pod pod;
  if (const auto* meta = find_object(object, "metadata")) {
    pod.name = find_string(*meta, "name").value_or("");
    pod.replicated_job = label_or_annotation(*meta, kReplicatedJobLabel).value_or("");
    pod.job_index = parse_index(label_or_annotation(*meta, kJobIndexLabel));
    pod.completion_index = parse_index(label_or_annotation(*meta, kCompletionIndex));
  }
  pod.container = container;
  if (pod.container.empty()) {
    // The trainer's container is `node`; a pod with one container needs no name.
    if (const auto* containers = find_array(*find_object(object, "spec"), "containers")) {
      for (const auto& c : *containers) {
        if (c.is_object() &&
            find_string(c.get_object(), "name") == std::string(kTrainerContainer)) {
          pod.container = std::string(kTrainerContainer);
        }
      }
    }
  }
  return pod;
}

Result<std::vector<Pod>> select_pods(kube::Client& client, std::string_view ns,
                                     std::string_view name, const LogsOptions& options) {
  auto pods_resource = client.resource_for("v1", "Pod", options);
  if (!pods_resource) return tl::unexpected(std::move(pods_resource.error()));
  kube::ListOptions list_options;
  static_cast<kube::CallOptions&>(list_options) = options;
  list_options.label_selector = std::string(kJobSetNameLabel) + "=" + std::string(name);
  if (!options.replicated_job.empty()) {
    list_options.label_selector +=
        "," + std::string(kReplicatedJobLabel) + "=" + options.replicated_job;
  }
  auto listed = client.list(*pods_resource, ns, list_options);
  if (!listed) return tl::unexpected(std::move(listed.error()));

  std::vector<Pod> pods;
  if (const auto* items = find_array(*listed, "items")) {
    for (const auto& item : *items) {
      if (!item.is_object() || find_object(item.get_object(), "spec") == nullptr) continue;
      pods.push_back(pod_of(item.get_object(), options.container));
    }
  }
  // Default: the trainer's pods when the JobSet has them (initializers are asked for by name).
  std::string replicated_job = options.replicated_job;
  if (replicated_job.empty() && !options.all &&
      std::any_of(pods.begin(), pods.end(),
                  [](const Pod& p) { return p.replicated_job == kTrainerJob; })) {
    replicated_job = std::string(kTrainerJob);
  }
  pods.erase(std::remove_if(pods.begin(), pods.end(),
                            [&](const Pod& p) {
                              if (!replicated_job.empty() && p.replicated_job != replicated_job) {
                                return true;
                              }
                              // Node N: completion index N of the first Job of that
                              // replicated job (the trainer's has one replica).
                              return options.node &&
                                     (p.completion_index != std::optional<long>(*options.node) ||
                                      p.job_index.value_or(0) != 0);
                            }),
             pods.end());
  std::sort(pods.begin(), pods.end(), [](const Pod& a, const Pod& b) {
    return std::tie(a.replicated_job, a.job_index, a.completion_index, a.name) <
           std::tie(b.replicated_job, b.job_index, b.completion_index, b.name);
  });
  if (pods.empty()) {
    std::string what = "TrainJob " + std::string(ns) + "/" + std::string(name) + " has no pod";
    if (!replicated_job.empty()) what += " of replicated job \"" + replicated_job + "\"";
    if (options.node) what += " for node " + std::to_string(*options.node);
    return fail(ErrorCode::kNotFound, what);
  }
  return pods;
}

}  // namespace

Result<void> logs(kube::Client& client, std::string_view ns, std::string_view name,
                  const LogsOptions& options,
                  const std::function<bool(const LogChunk&)>& on_chunk) {
  const std::string the_ns = ns.empty() ? client.default_namespace() : std::string(ns);
  auto pods = select_pods(client, the_ns, name, options);
  if (!pods) return tl::unexpected(std::move(pods.error()));

  // One token for every stream: a callback that says stop, or a failed stream, ends them all.
  detail::OperationToken operation(options.cancel);
  std::mutex mutex;  // serialises on_chunk and the outcome
  bool stopped = false;
  std::optional<Error> first_error;

  auto read_pod = [&](const Pod& pod) {
    kube::LogOptions log_options;
    log_options.cancel = operation.token();
    log_options.timeout = options.timeout;
    log_options.container = pod.container;
    log_options.follow = options.follow;
    log_options.tail_lines = options.tail_lines;
    log_options.since_seconds = options.since_seconds;
    auto read = client.logs(the_ns, pod.name, log_options, [&](std::string_view data) {
      const std::lock_guard<std::mutex> lock(mutex);
      if (stopped) return false;
      if (!on_chunk(LogChunk{pod.name, data})) {
        stopped = true;
        operation.cancel();
        return false;
      }
      return true;
    });
    const std::lock_guard<std::mutex> lock(mutex);
    if (!read && !stopped && !first_error) {
      first_error = std::move(read.error());
      operation.cancel();
    }
  };

  if (options.follow && pods->size() > 1) {
    std::vector<std::thread> readers;
    readers.reserve(pods->size());
    try {
      for (const auto& pod : *pods) readers.emplace_back(read_pod, std::cref(pod));
    } catch (const std::system_error& e) {
      // No thread for every pod: stop the ones started and report it.
      operation.cancel();
      for (auto& reader : readers) reader.join();
      return fail(ErrorCode::kIo, std::string("cannot start a log reader: ") + e.what());
    }
    for (auto& reader : readers) reader.join();
  } else {
    for (const auto& pod : *pods) {
      read_pod(pod);
      if (stopped || first_error) break;
    }
  }
  if (first_error) {
    // The caller's cancellation is the error to report, not what it did to the streams.
    if (options.cancel.cancelled()) return fail(ErrorCode::kCancelled, "cancelled");
    return tl::unexpected(std::move(*first_error));
  }
  return {};
}

}  // namespace trainer::cluster
