// SPDX-License-Identifier: Apache-2.0
//
// A C plugin descriptor as a trainer::Plugin: every extension point builds the request document,
// calls the callback, and applies the checked reply. Nothing the callback does or replies can
// throw out of here or crash the pipeline.
#include "plugin/adapter.hpp"
#include "api/status_carrier.hpp"
#include "kube/strategic_merge.hpp"
#include "plugin/plugin_internal.hpp"
#include "trainer/codec.hpp"
#include "trainer/plugin.hpp"

#include <new>
#include <string>
#include <utility>

namespace trainer::detail {
namespace {

namespace json = boost::json;

Error with_prefix(std::string_view plugin, PluginPhase phase, Error e) {
  e.message = "plugin \"" + std::string(plugin) + "\": " + phase_name(phase) + ": " + e.message;
  return e;
}

Error reply_error(std::string_view plugin, PluginPhase phase, Error e) {
  Error out = plugin_reply_error(plugin, phase, e.message);
  out.fields = std::move(e.fields);
  return out;
}

Error from_current_exception(std::string_view plugin, PluginPhase phase) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return with_prefix(plugin, phase, Error(ErrorCode::kNoMemory, "out of memory"));
  } catch (const std::exception& e) {
    return with_prefix(plugin, phase, Error(ErrorCode::kInternal, e.what()));
  } catch (...) {
    return with_prefix(plugin, phase, Error(ErrorCode::kInternal, "unknown error"));
  }
}

ErrorCode code_of(trainer_status status) {
  if (status <= static_cast<int>(ErrorCode::kInvalidArgument) &&
      status >= static_cast<int>(ErrorCode::kFailed)) {
    return static_cast<ErrorCode>(status);
  }
  return ErrorCode::kUser;
}

// One class for every descriptor: it derives from every extension point's interface and lists in
// `phases()` only those whose callback the descriptor has, so the Framework calls no other.
class CPlugin final : public CustomValidationPlugin,
                      public EnforceMLPolicyPlugin,
                      public EnforcePodGroupPolicyPlugin,
                      public EnforcePodSpecPlugin,
                      public PreComponentBuilderPlugin,
                      public ComponentBuilderPlugin,
                      public TrainJobStatusPlugin {
 public:
  explicit CPlugin(const trainer_plugin_descriptor& desc) : desc_(desc), name_(desc.name) {
    desc_.name = name_.c_str();
    const std::pair<trainer_plugin_fn, Phase> callbacks[] = {
        {desc.validate, Phase::kCustomValidation},
        {desc.enforce_ml_policy, Phase::kEnforceMLPolicy},
        {desc.enforce_pod_group_policy, Phase::kEnforcePodGroupPolicy},
        {desc.enforce_pod_spec, Phase::kEnforcePodSpec},
        {desc.pre_build_sync, Phase::kPreComponentBuilder},
        {desc.build, Phase::kComponentBuilder},
        {desc.status, Phase::kTrainJobStatus},
    };
    for (const auto& [fn, phase] : callbacks) {
      if (fn != nullptr) phases_.add(phase);
    }
  }
  ~CPlugin() override {
    if (desc_.user_data_free != nullptr) desc_.user_data_free(desc_.user_data);
  }
  CPlugin(const CPlugin&) = delete;
  CPlugin& operator=(const CPlugin&) = delete;

  [[nodiscard]] std::string_view name() const override { return name_; }
  [[nodiscard]] Phases phases() const override { return phases_; }

  ValidationResult validate(const Info& info, const TrainJob* old_job, const TrainJob& new_job,
                            const PluginContext& ctx) override {
    const PluginPhase phase = PluginPhase::kValidate;
    ValidationResult out;
    auto r = guarded(phase, [&]() -> Result<void> {
      RequestInputs in = inputs(phase, new_job, ctx);
      in.old_job = old_job;
      in.info = &info;
      auto reply = call(in);
      if (!reply) return tl::unexpected(reply.error());
      if (*reply) out = std::move((*reply)->validation);
      return {};
    });
    // A failed callback has no field to blame: it is reported as an internal field error on
    // `spec` (`spec: Internal error: plugin "X": validate: ...`), so that admission still
    // reports every other plugin's findings.
    if (!r) out.errors.push_back(field_internal("spec", r.error().message));
    return out;
  }

  Result<void> enforce_ml_policy(Info& info, TrainJob& job, const PluginContext& ctx) override {
    const PluginPhase phase = PluginPhase::kEnforceMLPolicy;
    return guarded(phase, [&]() -> Result<void> {
      RequestInputs in = inputs(phase, job, ctx);
      in.info = &info;
      auto reply = call(in);
      if (!reply) return tl::unexpected(reply.error());
      if (!*reply) return {};
      // Both patches are applied to copies, so that a bad one changes neither.
      Info next = info;
      if ((*reply)->info) {
        if (auto r = apply_info_patch(next, *(*reply)->info); !r) {
          return tl::unexpected(reply_error(name_, phase, r.error()));
        }
      }
      TrainJob next_job = job;
      if ((*reply)->train_job) {
        auto patched = strategic_merge(to_json(job), *(*reply)->train_job, SchemaType::kUntyped);
        if (!patched) return tl::unexpected(reply_error(name_, phase, patched.error()));
        auto decoded = decode_train_job(*patched);
        if (!decoded) {
          Error e = decoded.error();
          e.message = "trainJob: " + e.message;
          return tl::unexpected(reply_error(name_, phase, std::move(e)));
        }
        next_job = std::move(decoded->object);
      }
      info = std::move(next);
      job = std::move(next_job);
      return {};
    });
  }

  Result<void> enforce_pod_group_policy(Info& info, const TrainJob& job,
                                        const PluginContext& ctx) override {
    return patch_info(PluginPhase::kEnforcePodGroupPolicy, info, job, ctx);
  }

  Result<void> enforce_pod_spec(Info& info, const TrainJob& job,
                                const PluginContext& ctx) override {
    return patch_info(PluginPhase::kEnforcePodSpec, info, job, ctx);
  }

  Result<void> pre_build_sync(Info& info, const TrainJob& job, const PluginContext& ctx) override {
    return patch_info(PluginPhase::kPreBuildSync, info, job, ctx);
  }

  Result<std::vector<json::value>> build(const Info& info, const TrainJob& job,
                                         const PluginContext& ctx) override {
    const PluginPhase phase = PluginPhase::kBuild;
    std::vector<json::value> objects;
    auto r = guarded(phase, [&]() -> Result<void> {
      RequestInputs in = inputs(phase, job, ctx);
      in.info = &info;
      auto reply = call(in);
      if (!reply) return tl::unexpected(reply.error());
      if (*reply) objects = std::move((*reply)->objects);
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return objects;
  }

  Result<void> status(const TrainJob& job, json::object& status,
                      const PluginContext& ctx) override {
    const PluginPhase phase = PluginPhase::kStatus;
    return guarded(phase, [&]() -> Result<void> {
      RequestInputs in = inputs(phase, job, ctx);
      in.status = &status;
      auto reply = call(in);
      if (!reply) return tl::unexpected(reply.error());
      if (!*reply || !(*reply)->status) return {};
      auto patched = strategic_merge(json::value(status), *(*reply)->status, SchemaType::kUntyped);
      if (!patched) return tl::unexpected(reply_error(name_, phase, patched.error()));
      if (!patched->is_object()) {
        return tl::unexpected(plugin_reply_error(name_, phase, "status: expected object"));
      }
      // The refined status must still be a TrainJob status, or the API server would refuse the
      // whole status write.
      if (auto decoded =
              decode_train_job_status(job.metadata.name.value_or(""), patched->get_object());
          !decoded) {
        return tl::unexpected(reply_error(name_, phase, decoded.error()));
      }
      status = std::move(patched->get_object());
      return {};
    });
  }

 private:
  [[nodiscard]] trainer_plugin_fn callback(PluginPhase phase) const noexcept {
    switch (phase) {
      case PluginPhase::kValidate: return desc_.validate;
      case PluginPhase::kEnforceMLPolicy: return desc_.enforce_ml_policy;
      case PluginPhase::kEnforcePodGroupPolicy: return desc_.enforce_pod_group_policy;
      case PluginPhase::kEnforcePodSpec: return desc_.enforce_pod_spec;
      case PluginPhase::kPreBuildSync: return desc_.pre_build_sync;
      case PluginPhase::kBuild: return desc_.build;
      case PluginPhase::kStatus: return desc_.status;
    }
    return nullptr;
  }

  static RequestInputs inputs(PluginPhase phase, const TrainJob& job, const PluginContext& ctx) {
    RequestInputs in;
    in.phase = phase;
    in.job = &job;
    in.train_job_uid = ctx.inputs.train_job_uid;
    in.config = ctx.config;
    in.gates = ctx.feature_gates;
    return in;
  }

  template <class Body>
  Result<void> guarded(PluginPhase phase, Body&& body) noexcept {
    try {
      return body();
    } catch (...) {
      return tl::unexpected(from_current_exception(name_, phase));
    }
  }

  // One callback: the request, the call, the reply checked for the phase (nullopt: no reply).
  Result<std::optional<PluginReply>> call(const RequestInputs& in) const {
    trainer_plugin_fn fn = callback(in.phase);
    if (fn == nullptr) return std::optional<PluginReply>();
    trainer_plugin_request request;
    request.document = plugin_request_document(in);
    trainer_plugin_reply reply;
    const trainer_status status = fn(desc_.user_data, &request, &reply);
    if (reply.refused_bytes != 0) {
      return tl::unexpected(
          Error(ErrorCode::kLimit, "plugin \"" + name_ + "\": " + phase_name(in.phase) +
                                       ": reply: " + std::to_string(reply.refused_bytes) +
                                       " bytes exceeds the limit of a plugin reply (" +
                                       std::to_string(kMaxPluginReplyBytes) + " bytes)"));
    }
    if (status != TRAINER_OK) {
      return tl::unexpected(
          Error(code_of(status),
                "plugin \"" + name_ + "\": " + phase_name(in.phase) + ": " + reply.error_message));
    }
    if (!reply.json || reply.json->empty()) return std::optional<PluginReply>();
    auto parsed = parse_plugin_reply(name_, in.phase, *reply.json);
    if (!parsed) return tl::unexpected(parsed.error());
    return std::optional<PluginReply>(std::move(*parsed));
  }

  // The enforce and pre-build phases whose reply may only patch `info`.
  Result<void> patch_info(PluginPhase phase, Info& info, const TrainJob& job,
                          const PluginContext& ctx) {
    return guarded(phase, [&]() -> Result<void> {
      RequestInputs in = inputs(phase, job, ctx);
      in.info = &info;
      auto reply = call(in);
      if (!reply) return tl::unexpected(reply.error());
      if (!*reply || !(*reply)->info) return {};
      if (auto r = apply_info_patch(info, *(*reply)->info); !r) {
        return tl::unexpected(reply_error(name_, phase, r.error()));
      }
      return {};
    });
  }

  trainer_plugin_descriptor desc_{};
  std::string name_;
  Phases phases_;
};

}  // namespace

std::shared_ptr<Plugin> make_c_plugin(const trainer_plugin_descriptor& desc) {
  return std::make_shared<CPlugin>(desc);
}

}  // namespace trainer::detail
