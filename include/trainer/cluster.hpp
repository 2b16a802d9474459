// SPDX-License-Identifier: Apache-2.0
//
// The TrainJob operations on a cluster, the verbs of the Kubeflow SDK's TrainerClient and of
// `trainerctl apply/get/describe/wait/logs/delete` (docs/cluster.md), over a `kube::Client`.
//
//   auto applied = trainer::cluster::apply(client, documents, {});   // admitted locally first
//   auto done = trainer::cluster::wait(client, "default", "mnist", {"Complete"}, {});
//
// Thread safety: the functions are safe to call concurrently on one client.
#pragma once

#include "trainer/error.hpp"
#include "trainer/framework.hpp"
#include "trainer/kube.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer {
class Framework;
}  // namespace trainer

namespace trainer::cluster {

/// The kinds these operations name, as kubectl accepts them on the command line
/// (`kOptimizationJob`: trainer.kubeflow.org OptimizationJobs, namespaced).
enum class Kind { kTrainJob, kTrainingRuntime, kClusterTrainingRuntime, kOptimizationJob };

/// `trainjob`, `trainjobs`, `TrainJob`, `trainjobs.trainer.kubeflow.org`, ... -> Kind;
/// `kInvalidArgument` (`the server doesn't have a resource type "x"`) otherwise.
[[nodiscard]] Result<Kind> parse_kind(std::string_view name);
/// The discovered resource of `kind` (cached by the client).
[[nodiscard]] Result<kube::Resource> resource_of(kube::Client& client, Kind kind,
                                                 const kube::CallOptions& options = {});

struct AppliedObject;

/// The objects of parsed documents (e.g. `parse_documents`) in order, a `v1` `List` replaced by
/// its items, as kubectl reads files; `kInvalid` for a document or item that is not an object.
[[nodiscard]] Result<std::vector<boost::json::object>> objects_of(
    const std::vector<boost::json::value>& documents);
/// kubectl's rule for `-n`: `kInvalidArgument` (`the namespace from the provided object "a" does
/// not match the namespace "b". You must pass '--namespace=a' to perform this operation.`) when
/// `object` names another namespace than a non-empty `explicit_ns`.
[[nodiscard]] Result<void> check_namespace(const boost::json::object& object,
                                           std::string_view explicit_ns);

struct ApplyOptions : kube::CallOptions {
  std::string field_manager = "trainerctl";
  bool dry_run = false;  ///< server dry run (`dryRun=All`)
  bool force = false;    ///< `force=true`: take over fields other managers own
  /// Namespace of objects that name none (`-n`); empty: the client's default namespace.
  std::string namespace_;
  /// Warnings of local admission (a runtime that neither the input nor the cluster holds).
  std::function<void(std::string_view)> on_warning;
  /// The plugins local admission runs, with their feature gates, borrowed for the call; null:
  /// `default_framework({})`.
  const Framework* framework = nullptr;
  /// Local admission refuses unknown fields (`AdmissionOptions::strict_fields`), so that a
  /// misspelt field fails the call before anything is applied; the server's own check is the
  /// client's `fieldValidation` (kube::WriteOptions, strict by default).
  bool strict_fields = false;
  /// Called after each object is applied, in order, so that a caller can show what was applied
  /// before a later object failed (kubectl prints each line as it goes).
  std::function<void(const AppliedObject&)> on_applied;
};

struct AppliedObject {
  std::string ref;             ///< kubectl's `trainjob.trainer.kubeflow.org/mnist`
  boost::json::object object;  ///< as the server returned it
};

/// Server-side applies every object of `documents` (parsed, e.g. by `parse_documents`), in
/// order. First every TrainJob and runtime is admitted locally, with the same path as
/// `trainerctl validate` (`trainer::admit`), against the runtimes among the documents and,
/// for the runtimes a TrainJob references that are not among them, those of the cluster: when
/// any document is rejected the call fails with its field errors (`kInvalid`) and nothing is
/// applied. An object of a kind the server does not serve fails the call before anything is
/// applied too. Then each object is applied; the first server error stops the call (objects
/// applied before it stay applied and were reported to `on_applied`).
[[nodiscard]] Result<std::vector<AppliedObject>> apply(
    kube::Client& client, const std::vector<boost::json::value>& documents,
    const ApplyOptions& options = {});

struct GetOptions : kube::CallOptions {
  std::string label_selector;
  bool all_namespaces = false;
};

/// One object (`kNotFound` with the server's message when absent).
[[nodiscard]] Result<boost::json::object> get(kube::Client& client, Kind kind, std::string_view ns,
                                              std::string_view name,
                                              const kube::CallOptions& options = {});
/// Every object of `kind` in `ns` (or all namespaces), as a `<Kind>List`.
[[nodiscard]] Result<boost::json::object> list(kube::Client& client, Kind kind, std::string_view ns,
                                               const GetOptions& options = {});

/// `list` of any discovered resource (JobSets, Pods, ...).
[[nodiscard]] Result<boost::json::object> list(kube::Client& client, const kube::Resource& resource,
                                               std::string_view ns, const GetOptions& options = {});

/// The server's table of `kind` (the CRD's printer columns), as kubectl prints it: a
/// `meta.k8s.io/v1` `Table` (`columnDefinitions`, `rows[].cells`). `name` empty: every object.
[[nodiscard]] Result<boost::json::object> table(kube::Client& client, Kind kind,
                                                std::string_view ns, std::string_view name,
                                                const GetOptions& options = {});
/// The server's table of any discovered resource (a JobSet's printer columns, the Pod columns
/// the API server computes): what `trainerctl get jobsets` prints.
[[nodiscard]] Result<boost::json::object> table(kube::Client& client,
                                                const kube::Resource& resource, std::string_view ns,
                                                std::string_view name,
                                                const GetOptions& options = {});

struct WatchOptions : kube::CallOptions {
  std::string label_selector;
  bool all_namespaces = false;
  std::string name;  ///< watch only this TrainJob (fieldSelector metadata.name)
  /// Empty: the current objects arrive first as ADDED events.
  std::string resource_version;
};

/// Watches TrainJobs until `on_event` returns false, the token is cancelled or an error the
/// watch cannot recover from (see `kube::Client::watch`).
[[nodiscard]] Result<void> watch(kube::Client& client, std::string_view ns,
                                 const WatchOptions& options,
                                 const std::function<bool(const kube::WatchEvent&)>& on_event);

struct WaitOptions : kube::CallOptions {
  /// How long to wait (kubectl's default 30 s); 0 checks once; negative: a week (kubectl).
  std::chrono::milliseconds wait_timeout{std::chrono::seconds(30)};
};

/// Waits until the TrainJob's condition `condition` (compared case-insensitively, e.g.
/// `Complete`, `Failed`, `Suspended`, any type) has status `status` (default `True`), as
/// `kubectl wait --for=condition=...` does (a condition older than the object's generation does
/// not count). Returns the TrainJob at that moment. Fails with `kTimeout`
/// (`timed out waiting for the condition on trainjobs/<name>`; with a zero timeout:
/// `condition not met for trainjobs/<name>`), with `kNotFound` when the TrainJob does not exist
/// or is deleted meanwhile, and with `kFailed` when, waiting for any condition other than
/// `Failed`, the TrainJob's `Failed` condition becomes True (the message names its reason and
/// message).
[[nodiscard]] Result<boost::json::object> wait(kube::Client& client, std::string_view ns,
                                               std::string_view name, std::string_view condition,
                                               std::string_view status = "True",
                                               const WaitOptions& options = {});

/// Waits until the object `name` of `resource` is gone, as `kubectl wait --for=delete`: at once
/// when it does not exist; else its deletion is watched (fieldSelector metadata.name). Fails with
/// `kTimeout` (`timed out waiting for the condition on trainjobs/<name>`; with a zero timeout:
/// `condition not met for trainjobs/<name>`). Returns whether the object existed when the wait
/// began.
[[nodiscard]] Result<bool> wait_deleted(kube::Client& client, const kube::Resource& resource,
                                        std::string_view ns, std::string_view name,
                                        const WaitOptions& options = {});

/// The object an event is about (an Event's `involvedObject`).
struct InvolvedObject {
  std::string kind;  ///< `TrainJob`, `JobSet`, `Pod`
  std::string namespace_;
  std::string name;
  std::string uid;  ///< empty: events of any object of that kind and name
};

/// The core/v1 Events about each of `objects`, as `kubectl describe` finds them (one list per
/// object: fieldSelector `involvedObject.kind,name,namespace[,uid]`, every page), merged and
/// ordered oldest first by kubectl's clock: `series.lastObservedTime`, else `lastTimestamp`, else
/// `eventTime`.
[[nodiscard]] Result<std::vector<boost::json::object>> events(
    kube::Client& client, const std::vector<InvolvedObject>& objects,
    const kube::CallOptions& options = {});

/// Which pods of a TrainJob `logs` reads: those of its JobSet (label
/// `jobset.sigs.k8s.io/jobset-name`), narrowed to one replicated job and/or one node.
struct LogsOptions : kube::CallOptions {
  std::string replicated_job;  ///< empty: `node` (the default) when it exists, else all
  std::optional<int> node;     ///< the trainer node index (`--node N`): its pod only
  bool all = false;            ///< every pod of the TrainJob
  std::string container;       ///< empty: `node` for trainer pods, else the only container
  bool follow = false;
  std::optional<std::int64_t> tail_lines;
  std::optional<std::int64_t> since_seconds;
};

/// A chunk of a pod's log.
struct LogChunk {
  std::string_view pod;
  std::string_view data;
};

/// Streams the logs of a TrainJob's pods to `on_chunk` (false stops). Several pods are read
/// one after another, or concurrently with `follow`. `kNotFound` when the TrainJob has no pod
/// that matches.
[[nodiscard]] Result<void> logs(kube::Client& client, std::string_view ns, std::string_view name,
                                const LogsOptions& options,
                                const std::function<bool(const LogChunk&)>& on_chunk);

struct DeleteOptions : kube::CallOptions {
  kube::Propagation propagation = kube::Propagation::kBackground;  /// kubectl's default
  bool dry_run = false;
};

/// Deletes one object; `kNotFound` when absent.
[[nodiscard]] Result<void> remove(kube::Client& client, Kind kind, std::string_view ns,
                                  std::string_view name, const DeleteOptions& options = {});

}  // namespace trainer::cluster
