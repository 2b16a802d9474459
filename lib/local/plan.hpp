// SPDX-License-Identifier: Apache-2.0
//
// The plan of a local run: the rendered JobSet (and the ConfigMaps/Secrets beside it) read once
// into plain values: replicated jobs, Jobs, pods with their hostnames and loopback addresses,
// container command, env recipe and volumes. Everything the executor and the lifecycle need;
// nothing here touches the system.
#pragma once

#include "local/security.hpp"

#include "trainer/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace trainer::local::detail {

/// One file of a ConfigMap/Secret volume.
struct VolumeFile {
  std::string path;  ///< relative to the volume root
  std::string content;
  unsigned mode = 0644;
};

/// A projected service account token (`projected.sources[].serviceAccountToken`): issued per pod
/// attempt by the run's progress server, written at `path`.
struct TokenFile {
  std::string path;  ///< relative to the volume root
  std::string audience;
  std::int64_t expiration_seconds = 3600;
  unsigned mode = 0644;
  std::string field;  ///< its field path, for errors
};

/// A pod volume as the executor provides it.
struct Volume {
  enum class Kind { kEmptyDir, kClaim, kFiles, kHostPath };
  Kind kind = Kind::kEmptyDir;
  std::string name;
  std::string claim;              ///< kClaim: the claim (one folder per claim per run)
  std::vector<VolumeFile> files;  ///< kFiles
  std::vector<TokenFile> tokens;  ///< kFiles of a projected volume
  bool secret = false;            ///< kFiles from a Secret: written owner-only on the host
  std::string host_path;          ///< kHostPath
};

struct Mount {
  std::string volume;
  std::string mount_path;
  std::string sub_path;
  std::string sub_path_expr;  ///< expanded with the container's env when the pod starts
  bool read_only = false;
};

/// What a pod's container runs and with what, before per-attempt values (pod name) are known.
struct ContainerPlan {
  std::string name;
  std::vector<std::string> command;  ///< command + args, unexpanded
  std::string working_dir;
  boost::json::array env;       ///< the container's `env` as rendered
  boost::json::array env_from;  ///< the container's `envFrom` as rendered
  std::string path;             ///< field path of the container, for errors
  std::vector<Mount> mounts;
  SecurityContext security;  ///< what decides the user it runs as (pod and container level)
};

struct PodPlan {
  std::size_t replicated_job = 0;
  std::size_t job = 0;  ///< index into Plan::jobs
  int job_index = 0;
  int pod_index = 0;     ///< the completion index
  std::string hostname;  ///< `<jobset>-<rjob>-<jobIndex>-<podIndex>`
  std::string fqdn;      ///< `<hostname>.<subdomain>`
  std::string address;   ///< 127.0.1.N, distinct per pod
  std::string prefix;    ///< `<rjob>-<jobIndex>-<podIndex>`
  ContainerPlan container;
  std::vector<Volume> volumes;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::string service_account;
  std::int64_t grace_seconds = 30;
  /// The container runs sshd (upstream MPI node pods): locally no sshd is started, the pod
  /// only holds its namespaces for the rsh agent until the JobSet ends.
  bool holds_namespaces_only = false;
};

struct JobPlan {
  std::string name;  ///< `<jobset>-<rjob>-<jobIndex>`
  std::size_t replicated_job = 0;
  int job_index = 0;
  std::int64_t backoff_limit = 6;  ///< Kubernetes' default
  std::optional<std::int64_t> active_deadline_seconds;
  std::vector<std::size_t> pods;
};

struct Dependency {
  std::string name;
  std::string status;  ///< "Complete" or "Ready"
};

struct ReplicatedJobPlan {
  std::string name;
  std::int64_t replicas = 1;
  std::vector<Dependency> depends_on;
  std::vector<std::size_t> jobs;
};

/// A JobSet `failurePolicy.rules[]` entry.
struct FailureRule {
  std::string name;
  std::string action;  ///< FailJobSet, RestartJobSet, RestartJobSetAndIgnoreMaxRestarts
  std::vector<std::string> on_job_failure_reasons;
  std::vector<std::string> target_replicated_jobs;
};

struct Plan {
  std::string namespace_;
  std::string jobset;
  std::string train_job;  ///< the TrainJob's name (the JobSet's when no TrainJob was given)
  std::string subdomain;
  bool suspend = false;
  std::optional<std::int64_t> train_job_deadline_seconds;
  bool has_failure_policy = false;
  std::int64_t max_restarts = 0;
  std::vector<FailureRule> failure_rules;
  std::string success_operator = "All";
  std::vector<std::string> success_targets;  ///< empty: every replicated job
  std::vector<ReplicatedJobPlan> replicated_jobs;
  std::vector<JobPlan> jobs;
  std::vector<PodPlan> pods;
  /// ConfigMap and Secret `data` by name (Secret values decoded).
  std::map<std::string, std::map<std::string, std::string>> config_maps;
  std::map<std::string, std::map<std::string, std::string>> secrets;
  std::vector<std::string> warnings;
};

/// Reads the rendered objects: exactly one JobSet, any ConfigMaps/Secrets, optionally the
/// TrainJob (name, `activeDeadlineSeconds`, `suspend`). Other kinds (PodGroups, ...) are
/// ignored with a warning. Errors carry field paths below `JobSet.` (or `ConfigMap(name).`,
/// `Secret(name).`). Every field that names a host path (the JobSet and replicated job names,
/// volume names, claim names, item paths, data keys, subPath, mountPath) is checked here with
/// the API server's rules (docs/local.md, "Path safety"), so a refused input creates nothing.
[[nodiscard]] Result<Plan> make_plan(const std::vector<boost::json::value>& objects);

/// The loopback address of the `ordinal`-th pod: 127.0.1.1, 127.0.1.2, ... then 127.0.2.1 ...
[[nodiscard]] std::string pod_address(std::size_t ordinal);

}  // namespace trainer::local::detail
