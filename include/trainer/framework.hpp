// SPDX-License-Identifier: Apache-2.0
//
// The runtime framework: the data plugins share (`Info`, `PodSet`), one small interface per
// extension point (as upstream's pkg/runtime/framework/interface.go), and the `RenderContext` that
// supplies every input from outside (UID, clock, keys, existing objects). Built-in plugins use
// exactly these interfaces; so can an embedder's own.
#pragma once

#include "trainer/error.hpp"
#include "trainer/model.hpp"
#include "trainer/quantity.hpp"
#include "trainer/validation.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer {

/// A container as plugins see it (upstream `runtime.Container`). Lists are in Kubernetes JSON
/// form; the `upsert_*` helpers of trainer/plugin_support.hpp edit them with upstream's identity
/// rules.
struct Container {
  std::string name;
  std::string image;                 ///< "" = leave the template's image
  std::vector<std::string> command;  ///< empty = leave the template's command
  boost::json::array env;            ///< `[]EnvVar`
  boost::json::array ports;          ///< `[]ContainerPort`
  boost::json::array volume_mounts;  ///< `[]VolumeMount`
};

/// The pod DNS names of one PodSet (upstream `PodSet.Endpoints`, an iterator there too), computed
/// on demand: a TrainJob may have up to kMaxPodsPerTrainJob pods, and only an output that names
/// every pod (the MPI hostfile) should pay for a string per pod. Either the JobSet's pattern
/// `<job>-<replicatedJob>-<replica>-<pod>.<subdomain>`, replica-major (what the JobSet plugin's
/// pre-build step sets), or an explicit list (a plugin's own, or a C plugin's reply).
/// Copying is cheap for the pattern. Thread safety: const members may be called concurrently.
class PodEndpoints {
 public:
  /// Yields the names in order, each as a new string (an input iterator).
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = std::string;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::string;

    const_iterator() = default;
    [[nodiscard]] std::string operator*() const { return (*set_)[index_]; }
    const_iterator& operator++() {
      ++index_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++index_;
      return before;
    }
    [[nodiscard]] friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.index_ == b.index_;
    }
    [[nodiscard]] friend bool operator!=(const const_iterator& a, const const_iterator& b) {
      return a.index_ != b.index_;
    }

   private:
    friend class PodEndpoints;
    const_iterator(const PodEndpoints* set, std::size_t index) : set_(set), index_(index) {}
    const PodEndpoints* set_ = nullptr;
    std::size_t index_ = 0;
  };

  /// No endpoints (before the pre-build step).
  PodEndpoints() = default;
  /// An explicit list.
  PodEndpoints(std::vector<std::string> names) : names_(std::move(names)) {}  // NOLINT
  PodEndpoints(std::initializer_list<std::string> names) : names_(names) {}
  /// The JobSet's names of `replicas` Jobs of `pods_per_replica` pods each (negative counts are
  /// taken as 0). Nothing is allocated per pod.
  [[nodiscard]] static PodEndpoints jobset(std::string job_name, std::string_view replicated_job,
                                           std::string subdomain, std::int64_t replicas,
                                           std::int64_t pods_per_replica);

  /// How many names there are (saturated at SIZE_MAX).
  [[nodiscard]] std::size_t size() const noexcept;
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  /// The `index`-th name; `index < size()` is required.
  [[nodiscard]] std::string operator[](std::size_t index) const;
  /// The first name (the MASTER_ADDR-like host); `!empty()` is required.
  [[nodiscard]] std::string front() const { return (*this)[0]; }
  [[nodiscard]] const_iterator begin() const { return {this, 0}; }
  [[nodiscard]] const_iterator end() const { return {this, size()}; }
  /// Every name: one string per pod, only for what has to list them all.
  [[nodiscard]] std::vector<std::string> to_vector() const;

 private:
  std::vector<std::string> names_;  // the explicit list, unless `pattern_`
  bool pattern_ = false;
  std::string prefix_;  // `<job>-<replicatedJob>-`
  std::string suffix_;  // `.<subdomain>`
  std::uint64_t replicas_ = 0;
  std::uint64_t pods_per_replica_ = 0;
};

/// One replicated job of the JobSet template (upstream `runtime.PodSet`), at the same index as
/// the job in `TemplateSpec::jobset_spec["replicatedJobs"]`.
struct PodSet {
  std::string name;
  std::optional<std::string> ancestor;  ///< `trainer.kubeflow.org/trainjob-ancestor-step`
  std::optional<std::int32_t> count;    ///< pods per Job -> parallelism and completions
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  boost::json::array volumes;  ///< `[]Volume`
  PodEndpoints endpoints;      ///< pod DNS names, set by the JobSet pre-build step
  /// Effective requests of one pod (Kubernetes PodRequests: max(sum of app containers and
  /// sidecars, each init container), plus overhead; requests only).
  std::map<std::string, Quantity> single_pod_requests;

  [[nodiscard]] Container* find_container(std::string_view container_name);
  [[nodiscard]] const Container* find_container(std::string_view container_name) const;
};

/// The runtime's policies, copied so that plugins may refine them (MPI writes the resolved slot
/// count back into `ml_policy->mpi->num_proc_per_node`, as upstream does).
struct RuntimePolicy {
  std::optional<MLPolicy> ml_policy;
  std::optional<PodGroupPolicy> pod_group_policy;
};

/// Labels/annotations stamped on every pod template (gang scheduling).
struct SchedulerInfo {
  StringMap pod_labels;
  StringMap pod_annotations;
};

struct TemplateSpec {
  boost::json::object jobset_spec;  ///< the (patched, resource-merged) JobSet spec being built
  std::vector<PodSet> pod_sets;
  /// The runtime's JobSet spec as written, before runtime patches: what the JobSet plugin checks
  /// the patches' job and container names against. Left empty when the TrainJob has no runtime
  /// patches (nothing to check; `jobset_spec` then starts as this same spec), which spares a copy
  /// of the template per render.
  boost::json::object runtime_jobset_spec;
};

/// The (Cluster)TrainingRuntime a TrainJob runs on, as plugins see it. A libtrainer extension
/// of upstream's Info: an out-of-tree plugin recognises its runtimes by their labels, by
/// convention `trainer.kubeflow.org/framework` (docs/plugins.md).
struct RuntimeIdentity {
  std::string kind;  ///< `TrainingRuntime` or `ClusterTrainingRuntime`
  std::string name;
  StringMap labels;       ///< the runtime's own `metadata.labels`
  StringMap annotations;  ///< the runtime's own `metadata.annotations`
};

/// Everything the plugins share about one TrainJob + runtime (upstream `runtime.Info`).
struct Info {
  StringMap labels;       ///< JobSet labels: runtime template metadata + runtime patches
  StringMap annotations;  ///< JobSet annotations, likewise
  RuntimeIdentity runtime;
  RuntimePolicy runtime_policy;
  SchedulerInfo scheduler;
  TemplateSpec template_spec;

  [[nodiscard]] PodSet* find_pod_set_by_ancestor(std::string_view ancestor);
  [[nodiscard]] const PodSet* find_pod_set_by_ancestor(std::string_view ancestor) const;
  [[nodiscard]] PodSet* find_pod_set_by_name(std::string_view name);
  [[nodiscard]] const PodSet* find_pod_set_by_name(std::string_view name) const;
};

/// Feature gates that change the pipeline (upstream's controller-manager configuration).
struct FeatureGates {
  bool trainjob_status = false;  ///< `TrainJobStatus` (alpha, off by default)
};

/// Parses upstream's `--feature-gates` text: comma-separated `Name=value` pairs, names
/// case-sensitive, values as Go's strconv.ParseBool (`true`, `1`, `t`, `False`, ...); spaces
/// around items are ignored and "" is all gates off. Errors (`kInvalid`): an item without `=`,
/// an unknown gate name, or a value that is not a boolean; the message quotes the item.
[[nodiscard]] Result<FeatureGates> parse_feature_gates(std::string_view text);

/// The parts of upstream's controller-manager configuration plugins read.
struct OperatorConfig {
  std::string operator_namespace = "kubeflow-system";
  std::string webhook_service_name = "kubeflow-trainer-controller-manager";
  std::string webhook_secret_name = "kubeflow-trainer-webhook-cert";
  std::optional<std::int32_t> status_server_port = 10443;
};

/// An SSH key pair in the formats the MPI Secret carries.
struct SshKeyPair {
  std::string private_key_pem;  ///< `-----BEGIN EC PRIVATE KEY-----` ... (SEC 1 DER)
  std::string authorized_key;   ///< `ecdsa-sha2-nistp521 <base64>\n`
};

/// Every input a render takes from outside. Nothing in the pipeline reads the clock, randomness
/// or the network by itself, so a render is a pure function of its inputs, this context and the
/// Framework's options. Thread safety: the callbacks may be called from the rendering thread
/// only; a context may be shared between concurrent renders when its callbacks are thread-safe.
struct RenderContext {
  std::string train_job_uid;  ///< used in owner references
  /// RFC 3339 "now" (runtime-patch time stamps); required only where a step needs the time.
  std::function<std::string()> now;
  /// A fresh MPI key pair; called only when an MPI Secret has to be built.
  std::function<Result<SshKeyPair>()> generate_ssh_key;
  /// An object that already exists in the cluster, or nullopt. Arguments: apiVersion, kind,
  /// namespace ("" for cluster-scoped), name.
  std::function<std::optional<boost::json::value>(std::string_view, std::string_view,
                                                  std::string_view, std::string_view)>
      lookup;
  /// Whether objects of a kind are namespaced, as a cluster's discovery says: true, false
  /// (cluster-scoped), or an error (kNotFound: a kind the cluster does not serve). Arguments:
  /// apiVersion, kind. The objects plugins build must be of a namespaced kind; unset (a render
  /// without a cluster), only the kinds of a fixed table count as namespaced (docs/plugins.md,
  /// "What a plugin may change").
  std::function<Result<bool>(std::string_view, std::string_view)> namespaced;

  /// `lookup`, or nullopt when no lookup is set.
  [[nodiscard]] std::optional<boost::json::value> find(std::string_view api_version,
                                                       std::string_view kind, std::string_view ns,
                                                       std::string_view name) const;
};

/// What a Framework is bound to when it is built, once, as upstream's `framework.New` takes the
/// controller-manager configuration: every render through it uses these.
struct FrameworkOptions {
  FeatureGates feature_gates;
  OperatorConfig config;
};

/// The options of `FrameworkOptions{}`, for a PluginContext made outside a Framework.
inline const FeatureGates kDefaultFeatureGates{};
inline const OperatorConfig kDefaultOperatorConfig{};

/// What every extension point is handed for one TrainJob: the render's inputs from outside and
/// the options of the Framework running the phase. Valid for the duration of the call only.
/// A RenderContext converts to one with the default options (a plugin called directly, as in its
/// tests); `inputs` must then outlive the call, as a temporary in the call expression does.
struct PluginContext {
  PluginContext(const RenderContext& inputs_,  // NOLINT(google-explicit-constructor)
                const FeatureGates& feature_gates_ = kDefaultFeatureGates,
                const OperatorConfig& config_ = kDefaultOperatorConfig) noexcept
      : inputs(inputs_), feature_gates(feature_gates_), config(config_) {}

  const RenderContext& inputs;
  const FeatureGates& feature_gates;
  const OperatorConfig& config;

  /// `inputs.find(...)`.
  [[nodiscard]] std::optional<boost::json::value> find(std::string_view api_version,
                                                       std::string_view kind, std::string_view ns,
                                                       std::string_view name) const {
    return inputs.find(api_version, kind, ns, name);
  }
};

/// The extension points (upstream's pkg/runtime/framework/interface.go), in pipeline order.
enum class Phase : std::uint8_t {
  kCustomValidation,
  kEnforceMLPolicy,
  kEnforcePodGroupPolicy,
  kEnforcePodSpec,
  kPreComponentBuilder,
  kComponentBuilder,
  kTrainJobStatus,
};

/// A set of extension points: what a plugin says it implements.
class Phases {
 public:
  constexpr Phases() noexcept = default;
  constexpr Phases(std::initializer_list<Phase> phases) noexcept {
    for (Phase p : phases) bits_ |= bit(p);
  }
  [[nodiscard]] constexpr bool has(Phase p) const noexcept { return (bits_ & bit(p)) != 0; }
  constexpr Phases& add(Phase p) noexcept {
    bits_ |= bit(p);
    return *this;
  }
  [[nodiscard]] constexpr bool empty() const noexcept { return bits_ == 0; }
  [[nodiscard]] friend constexpr bool operator==(Phases a, Phases b) noexcept {
    return a.bits_ == b.bits_;
  }
  [[nodiscard]] friend constexpr bool operator!=(Phases a, Phases b) noexcept {
    return a.bits_ != b.bits_;
  }

 private:
  static constexpr std::uint32_t bit(Phase p) noexcept {
    return std::uint32_t{1} << static_cast<unsigned>(p);
  }
  std::uint32_t bits_ = 0;
};

/// Upstream's name of an extension point (`CustomValidation`, `EnforceMLPolicy`, ...,
/// `TrainJobStatus`), as error messages name it.
[[nodiscard]] std::string_view phase_name(Phase phase) noexcept;

// ---------------------------------------------------------------------------------------------
// Extension points. A plugin derives from `Plugin` and from the interface of each phase it
// implements, and says which those are in `phases()`: the Framework calls a plugin only in the
// phases it lists (and refuses one that lists a phase whose interface it does not derive from).

class Plugin {
 public:
  virtual ~Plugin() = default;
  /// Registry name, as upstream (`Torch`, `MPI`, `JobSet`, `CoScheduling`, ...).
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// The extension points this plugin takes part in.
  [[nodiscard]] virtual Phases phases() const = 0;
};

/// Admission checks of a TrainJob (create: `old_job` is null).
class CustomValidationPlugin : public virtual Plugin {
 public:
  [[nodiscard]] virtual ValidationResult validate(const Info& info, const TrainJob* old_job,
                                                  const TrainJob& new_job,
                                                  const PluginContext& ctx) = 0;
};

/// Applies `mlPolicy` to `info` (counts, env, volumes, ports). May rewrite the in-memory
/// TrainJob's trainer command (torchtune, Flux), as upstream does.
class EnforceMLPolicyPlugin : public virtual Plugin {
 public:
  [[nodiscard]] virtual Result<void> enforce_ml_policy(Info& info, TrainJob& job,
                                                       const PluginContext& ctx) = 0;
};

/// Applies `podGroupPolicy` (pod labels/annotations for the gang scheduler).
class EnforcePodGroupPolicyPlugin : public virtual Plugin {
 public:
  [[nodiscard]] virtual Result<void> enforce_pod_group_policy(Info& info, const TrainJob& job,
                                                              const PluginContext& ctx) = 0;
};

/// Pod spec concerns not driven by a policy (the status-server wiring).
class EnforcePodSpecPlugin : public virtual Plugin {
 public:
  [[nodiscard]] virtual Result<void> enforce_pod_spec(Info& info, const TrainJob& job,
                                                      const PluginContext& ctx) = 0;
};

/// Reconciles `info` with the concrete template (endpoints, parallelism); the template owner only.
class PreComponentBuilderPlugin : public virtual Plugin {
 public:
  [[nodiscard]] virtual Result<void> pre_build_sync(Info& info, const TrainJob& job,
                                                    const PluginContext& ctx) = 0;
};

/// Materialises Kubernetes objects (JSON, as the controller would apply them).
class ComponentBuilderPlugin : public virtual Plugin {
 public:
  [[nodiscard]] virtual Result<std::vector<boost::json::value>> build(const Info& info,
                                                                      const TrainJob& job,
                                                                      const PluginContext& ctx) = 0;

  /// Whether this builder's objects are made of parts of the Info it could take instead of
  /// copying them (the JobSet plugin's JobSet is the runtime's JobSet template with the PodSets'
  /// containers and volumes written into it), so that a render that gives its Info up may call
  /// `build_taking_info` instead of `build`. False by default.
  [[nodiscard]] virtual bool takes_info() const { return false; }
  /// `build`, when the caller gives `info` up: every other builder of the render has already run
  /// (the objects still come out in plugin order) and nothing reads the Info afterwards, so the
  /// plugin may move what it uses out of it instead of copying it. Called only when
  /// `takes_info()`, for at most one builder per render; by default `build`.
  [[nodiscard]] virtual Result<std::vector<boost::json::value>> build_taking_info(
      Info& info, const TrainJob& job, const PluginContext& ctx) {
    return build(info, job, ctx);
  }
};

/// Refines the TrainJob status the controller derived (reference 5.2). Upstream lets one plugin
/// derive the whole status (the JobSet plugin); in libtrainer the built-in derivation always
/// runs and at most one further plugin may refine its result (a Framework with two is refused:
/// `too many TrainJobStatus plugins are registered`). Called by the controller only.
class TrainJobStatusPlugin : public virtual Plugin {
 public:
  /// `status` is the TrainJob's `status` in Kubernetes JSON, as the controller will write it.
  [[nodiscard]] virtual Result<void> status(const TrainJob& job, boost::json::object& status,
                                            const PluginContext& ctx) = 0;
};

}  // namespace trainer
