// SPDX-License-Identifier: Apache-2.0
//
// One pass of upstream's TrainJob reconcile (reference 5.1) over a `kube::Client`: the objects
// come from the same pipeline as `trainerctl render` (`trainer::render`), with the cluster as the
// render context's lookup; the status from `derive_status`. Inside the loop, reads come from the
// informer stores (object_cache.hpp) and an apply that would change nothing is not sent again.
#include "controller/cluster_lookup.hpp"
#include "controller/controller_internal.hpp"
#include "trainer/admission.hpp"
#include "trainer/cluster.hpp"
#include "trainer/codec.hpp"
#include "trainer/controller.hpp"
#include "trainer/json_path.hpp"
#include "trainer/plugin_support.hpp"
#include "trainer/render.hpp"
#include "trainer/validation.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace trainer::controller {

namespace json = boost::json;
using trainer::find_object;
using trainer::find_string;

namespace {

constexpr std::string_view kTrainerApiVersion = "trainer.kubeflow.org/v1alpha1";

// errors.Join: every error of the reconcile, the first one's code.
void join(std::optional<Error>& into, Error e) {
  if (!into) {
    into = std::move(e);
    return;
  }
  into->message += "\n" + e.message;
}

json::value status_json(const TrainJobStatus& status) {
  TrainJob carrier;
  carrier.status = status;
  const json::value doc = to_json(carrier);
  const auto* s = doc.get_object().if_contains("status");
  return s != nullptr ? *s : json::value(json::object{});
}

}  // namespace

struct Reconciler::Impl {
  kube::Client& client;
  ReconcilerOptions options;
  /// The loop's informer stores; null for a Reconciler of its own (every read is a GET).
  detail::ObjectCache* cache = nullptr;

  [[nodiscard]] Clock::time_point now() const { return options.now ? options.now() : Clock::now(); }
  /// The plugins renders and the status step run: the caller's, else the built-in ones.
  [[nodiscard]] const Framework& framework() const { return options.framework_or_default(); }
  [[nodiscard]] kube::CallOptions call() const {
    kube::CallOptions c;
    c.cancel = options.cancel;
    return c;
  }

  // Step 5: render with the cluster as the lookup, then server-side apply each object, stopping
  // at the first error. `applied_jobset` gets the JobSet as the server answered its apply.
  // `refused` gets admission's errors when the TrainJob is refused on its live runtime (the API
  // server accepts what the webhook of a libtrainer cluster would refuse: a TrainJob of too many
  // pods); nothing is rendered then.
  Result<void> build_and_apply(const TrainJob& job, const std::string& ns,
                               detail::ClusterLookup& lookup, Clock::time_point now,
                               ReconcileResult& result, std::optional<json::object>& applied_jobset,
                               std::optional<Error>& refused) {
    const std::string name = job.metadata.name.value_or("");
    RenderContext ctx = system_render_context(job.metadata.uid.value_or(""));
    const std::string now_text = detail::format_time(now);
    ctx.now = [now_text] { return now_text; };
    ctx.lookup = [&lookup](std::string_view api_version, std::string_view kind,
                           std::string_view object_ns, std::string_view object_name) {
      return lookup.find(api_version, kind, object_ns, object_name);
    };
    // The cluster's discovery decides which kinds a plugin may build (namespaced ones only).
    ctx.namespaced = [this](std::string_view api_version, std::string_view kind) -> Result<bool> {
      auto resource = client.resource_for(api_version, kind, call());
      if (!resource) return tl::unexpected(std::move(resource.error()));
      return resource->namespaced;
    };

    // The live runtime is read only when no snapshot exists: the snapshot wins (reference 3.9).
    TrainingRuntime training_runtime;
    ClusterTrainingRuntime cluster_runtime;
    RuntimeLookup runtime;
    if (!ctx.find("v1", "ConfigMap", ns, name + "-runtime-snapshot")) {
      if (lookup.error()) return tl::unexpected(*lookup.error());
      auto fetched = detail::fetch_runtime(lookup, job, ns);
      if (!fetched) return tl::unexpected(std::move(fetched.error()));
      if (*fetched) {
        if (job.spec.runtime_ref.kind.value_or("") == kTrainingRuntimeKind) {
          auto decoded = decode_training_runtime(**fetched);
          if (!decoded) return tl::unexpected(std::move(decoded.error()));
          training_runtime = std::move(decoded->object);
          runtime.training_runtime = &training_runtime;
        } else {
          auto decoded = decode_cluster_training_runtime(**fetched);
          if (!decoded) return tl::unexpected(std::move(decoded.error()));
          cluster_runtime = std::move(decoded->object);
          runtime.cluster_training_runtime = &cluster_runtime;
        }
      }
    }

    if (runtime.training_runtime != nullptr || runtime.cluster_training_runtime != nullptr) {
      AdmissionScope scope;
      if (runtime.training_runtime != nullptr) {
        scope.training_runtimes.push_back(runtime.training_runtime);
      } else {
        scope.cluster_training_runtimes.push_back(runtime.cluster_training_runtime);
      }
      auto admitted = admit_object(job, scope, ctx, &framework());
      // A GET that failed is no reason to refuse the TrainJob for good: try again later.
      if (lookup.error()) return tl::unexpected(*lookup.error());
      if (!admitted) return tl::unexpected(std::move(admitted.error()));
      if (!admitted->ok()) {
        refused = Error::invalid(std::move(admitted->errors));
        return {};
      }
    }

    auto rendered = render(job, runtime, ctx, &framework());
    if (lookup.error()) return tl::unexpected(*lookup.error());
    if (!rendered) return tl::unexpected(std::move(rendered.error()));

    kube::ApplyOptions apply;
    apply.cancel = options.cancel;
    apply.field_manager = std::string(kFieldManager);
    apply.force = true;
    // Every object's resource first: nothing is written unless every object is namespaced and
    // in the TrainJob's namespace (render refused plugin objects that are not; this holds the
    // line for whatever else the render produced).
    std::vector<kube::Resource> resources;
    for (const auto& value : rendered->objects) {
      const auto* object = value.if_object();
      if (object == nullptr) return fail(ErrorCode::kInternal, "render produced a non-object");
      const std::string api_version = find_string(*object, "apiVersion").value_or("");
      const std::string kind = find_string(*object, "kind").value_or("");
      auto resource = client.resource_for(api_version, kind, call());
      if (!resource) return tl::unexpected(std::move(resource.error()));
      const std::string object_ns = trainer::object_namespace(*object);
      if (!resource->namespaced || (!object_ns.empty() && object_ns != ns)) {
        return fail(ErrorCode::kInternal, "render produced " + kind + " \"" +
                                              trainer::object_name(*object) +
                                              "\" outside TrainJob " + ns + "/" + name);
      }
      resources.push_back(std::move(*resource));
    }
    for (std::size_t i = 0; i < rendered->objects.size(); ++i) {
      const auto& object = rendered->objects[i].get_object();
      const kube::Resource& resource = resources[i];
      const std::string api_version = find_string(object, "apiVersion").value_or("");
      const std::string kind = find_string(object, "kind").value_or("");
      const std::string object_name = trainer::object_name(object);
      // The same body applied again to an object nobody changed since this process applied it
      // is a no-op on the server: not sent (the status step reads the object from the store).
      std::string digest;
      if (cache != nullptr) {
        digest = detail::body_digest(json::serialize(object));
        if (cache->unchanged_since_apply(api_version, kind, ns, object_name, digest)) continue;
      }
      auto answer = client.apply(resource, ns, object, apply);
      if (!answer) return tl::unexpected(std::move(answer.error()));
      if (cache != nullptr) {
        cache->wrote(api_version, kind, ns, object_name, *answer, std::move(digest));
      }
      result.applied.push_back(resource.kind_group() + "/" + object_name);
      if (api_version == kJobSetApiVersion && kind == kJobSetKind && object_name == name) {
        applied_jobset = std::move(*answer);
      }
    }
    return {};
  }

  // The JobSet for the status step: as applied, as the render looked it up, or read now.
  Result<std::optional<json::object>> current_jobset(const std::string& ns, const std::string& name,
                                                     detail::ClusterLookup& lookup,
                                                     std::optional<json::object> applied) {
    if (applied) return applied;
    if (const auto* seen = lookup.cached(kJobSetApiVersion, kJobSetKind, ns, name)) {
      if (!*seen) return std::nullopt;
      return (*seen)->get_object();
    }
    auto object = lookup.get(kJobSetApiVersion, kJobSetKind, ns, name);
    if (!object) return tl::unexpected(std::move(object.error()));
    if (!*object) return std::nullopt;
    return std::optional<json::object>(std::move((*object)->get_object()));
  }

  Result<ReconcileResult> reconcile(std::string_view ns_in, std::string_view name_in) {
    const std::string ns(ns_in);
    const std::string name(name_in);
    ReconcileResult result;
    result.key = ns + "/" + name;

    // Step 1: GET the TrainJob (from the loop's store, where there is one).
    auto trainjobs = client.resource_for(kTrainerApiVersion, kTrainJobKind, call());
    if (!trainjobs) return tl::unexpected(std::move(trainjobs.error()));
    detail::ClusterLookup lookup(client, call(), cache);
    auto object = lookup.get(kTrainerApiVersion, kTrainJobKind, ns, name);
    if (!object) return tl::unexpected(std::move(object.error()));
    if (!*object) {
      result.skipped = true;
      return result;
    }
    auto decoded = decode_train_job(std::move(**object));
    if (!decoded) return tl::unexpected(std::move(decoded.error()));
    TrainJob job = std::move(decoded->object);
    if (!job.metadata.namespace_ || job.metadata.namespace_->empty()) job.metadata.namespace_ = ns;

    // Step 2: another controller's TrainJob is not touched at all.
    if (job.spec.managed_by && *job.spec.managed_by != kManagedBy) {
      result.skipped = true;
      if (job.status) result.conditions = job.status->conditions;
      return result;
    }

    // Step 3: the status as read, for the merge patch.
    const json::value prev_status = status_json(job.status.value_or(TrainJobStatus{}));
    const Clock::time_point now = this->now();
    const std::string now_text = detail::format_time(now);
    const bool finished = detail::is_finished(job);
    std::optional<Error> error;

    // Step 4: the runtime kind must be one of the registry's. Upstream then dereferences the
    // nil runtime (reference Q13) and never writes the condition; this port persists it and
    // skips the status copy, and does not requeue: nothing a retry could change.
    bool supported = true;
    if (auto check = validate_train_job_runtime(job, RuntimeLookup{}); !check) {
      supported = false;
      if (!job.status) job.status.emplace();
      set_status_condition(job.status->conditions,
                           {std::string(kConditionFailed), "True", std::nullopt, "",
                            std::string(kReasonRuntimeNotSupported), check.error().message},
                           now_text);
    }

    // Step 5: objects, unless finished.
    std::optional<json::object> applied_jobset;
    if (supported && !finished) {
      std::optional<Error> refused;
      auto built = build_and_apply(job, ns, lookup, now, result, applied_jobset, refused);
      if (refused) {
        // Terminal, like an unsupported runtime: nothing a retry could change. The status step
        // below keeps the condition (there is no JobSet to copy from).
        supported = false;
        if (!job.status) job.status.emplace();
        set_status_condition(
            job.status->conditions,
            {std::string(kConditionFailed), "True", std::nullopt, "",
             std::string(kReasonValidationFailed), detail::condition_message(refused->message)},
            now_text);
        if (options.record_events) {
          (void)detail::record_warning(client, job, kReasonValidationFailed,
                                       detail::validation_failed_note(refused->message), now,
                                       options.cancel);
        }
      }
      if (!built) {
        if (options.record_events) {
          // Best effort, as upstream's asynchronous recorder.
          (void)detail::record_warning(client, job, kReasonCreationFailed,
                                       detail::creation_failed_note(built.error().message), now,
                                       options.cancel);
        }
        join(error, std::move(built.error()));
      }
    }

    // Steps 6-8: Suspended, the JobSet's status, the deadline.
    std::optional<json::object> jobset;
    if (supported) {
      auto current = current_jobset(ns, name, lookup, std::move(applied_jobset));
      if (!current) {
        join(error, std::move(current.error()));
      } else {
        jobset = std::move(*current);
        // Upstream's status step fails on a missing JobSet unless the TrainJob has finished
        // (reference 4.1.6 step 1; it may have been deleted by its TTL).
        if (!jobset && !finished && !error) {
          join(error,
               Error(ErrorCode::kNotFound, "jobsets.jobset.x-k8s.io \"" + name + "\" not found"));
        }
      }
    }
    DerivedStatus derived = derive_status(job, jobset ? &*jobset : nullptr, now);
    if (derived.deadline_exceeded) {
      auto jobsets = client.resource_for(kJobSetApiVersion, kJobSetKind, call());
      if (!jobsets) {
        join(error, std::move(jobsets.error()));
      } else {
        kube::DeleteOptions del;
        del.cancel = options.cancel;
        // Background: the JobSet goes at once and the garbage collector removes its Jobs.
        del.propagation = kube::Propagation::kBackground;
        auto removed = client.remove(*jobsets, ns, name, del);
        if (!removed && removed.error().code != ErrorCode::kNotFound) {
          join(error, std::move(removed.error()));
        } else if (removed && cache != nullptr) {
          cache->deleted(kJobSetApiVersion, kJobSetKind, ns, name, *removed);
        }
      }
    }
    if (derived.requeue_after) {
      result.requeue_after =
          std::chrono::duration_cast<std::chrono::milliseconds>(*derived.requeue_after);
    }

    // Step 9: the status subresource, only when it changed, after the framework's
    // TrainJobStatus plugin (if any) refined it. A plugin that fails leaves the derived status,
    // which is still written, and fails the reconcile (so it is retried).
    json::value next_status = status_json(derived.status);
    {
      json::object refined = next_status.as_object();
      RenderContext status_ctx;
      status_ctx.train_job_uid = job.metadata.uid.value_or("");
      if (auto r = framework().run_status(job, refined, status_ctx); !r) {
        join(error, std::move(r.error()));
      } else {
        next_status = std::move(refined);
      }
    }
    const json::value diff = detail::merge_patch(prev_status, next_status);
    if (!diff.is_null()) {
      kube::WriteOptions write;
      write.cancel = options.cancel;
      write.field_manager = std::string(kFieldManager);
      write.subresource = "status";
      const std::string body = json::serialize(json::object{{"status", diff}});
      auto patched = client.patch(*trainjobs, ns, name, kube::PatchType::kMerge, body, write);
      if (!patched) {
        join(error, std::move(patched.error()));
      } else {
        result.status_patched = true;
        if (cache != nullptr) cache->wrote(kTrainerApiVersion, kTrainJobKind, ns, name, *patched);
      }
    }
    result.conditions = derived.status.conditions;
    if (error) return tl::unexpected(std::move(*error));
    return result;
  }
};

const Framework& ReconcilerOptions::framework_or_default() const {
  return framework ? *framework : default_framework({});
}

Reconciler::Reconciler(kube::Client& client, ReconcilerOptions options)
    : impl_(std::make_unique<Impl>(Impl{client, std::move(options)})) {}
Reconciler::~Reconciler() = default;
Reconciler::Reconciler(Reconciler&&) noexcept = default;

Result<ReconcileResult> Reconciler::reconcile(std::string_view ns, std::string_view name) {
  return impl_->reconcile(ns, name);
}

namespace detail {

std::shared_ptr<Reconciler::Impl> cached_reconciler(kube::Client& client, ReconcilerOptions options,
                                                    ObjectCache* cache) {
  return std::make_shared<Reconciler::Impl>(Reconciler::Impl{client, std::move(options), cache});
}

Result<ReconcileResult> reconcile(Reconciler::Impl& reconciler, std::string_view ns,
                                  std::string_view name) {
  return reconciler.reconcile(ns, name);
}

}  // namespace detail

}  // namespace trainer::controller
