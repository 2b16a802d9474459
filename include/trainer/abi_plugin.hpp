// SPDX-License-Identifier: Apache-2.0
//
// trainer.hpp's plugin section (include <trainer.hpp>, which includes this): plugins written in
// C++ in this process (derive from abi::PluginBase, then abi::Plugin::create) or loaded from a
// shared library (abi::Plugin::load), and the framework that runs them after the built-in
// plugins (abi::Framework), which render, validation, apply and the controller take. Over the C
// ABI of trainer/plugin.h; docs/plugins.md describes the request and reply documents.
#pragma once

#include "trainer/abi_base.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace trainer::abi {

/// The request of one phase call (trainer_plugin_request): a view, valid only during the call
/// and only on its thread. Its strings are views into the request.
class PluginRequest {
 public:
  explicit PluginRequest(const trainer_plugin_request* raw) noexcept : raw_(raw) {}

  /// The whole request document as JSON text (shape in trainer/plugin.h).
  [[nodiscard]] std::string_view json() const noexcept {
    std::size_t len = 0;
    const char* text = trainer_plugin_request_json(raw_, &len);
    return std::string_view(text, len);
  }
  /// The value at the JSON pointer `pointer` (RFC 6901: `/trainJob/spec/trainer/numNodes`) as
  /// compact JSON text, strings quoted; std::nullopt when absent or `pointer` is malformed.
  [[nodiscard]] std::optional<std::string_view> get(const std::string& pointer) const noexcept {
    std::size_t len = 0;
    const char* text = trainer_plugin_request_get(raw_, pointer.c_str(), &len);
    if (text == nullptr) return std::nullopt;
    return std::string_view(text, len);
  }
  /// The string at `pointer`, unquoted; std::nullopt when absent or not a string.
  [[nodiscard]] std::optional<std::string_view> get_string(
      const std::string& pointer) const noexcept {
    const char* text = trainer_plugin_request_get_string(raw_, pointer.c_str());
    if (text == nullptr) return std::nullopt;
    return std::string_view(text);
  }
  /// The integer at `pointer`; std::nullopt when absent or not an integer.
  [[nodiscard]] std::optional<std::int64_t> get_int(const std::string& pointer) const noexcept {
    std::int64_t value = 0;
    if (trainer_plugin_request_get_int(raw_, pointer.c_str(), &value) == 0) return std::nullopt;
    return value;
  }

  /// The C request (borrowed).
  [[nodiscard]] const trainer_plugin_request* raw() const noexcept { return raw_; }

 private:
  const trainer_plugin_request* raw_;
};

/// What a phase method returns: the reply document (JSON text, shape in trainer/plugin.h;
/// std::nullopt: no reply, nothing changes), or an Error that fails the render (or validation,
/// or reconcile) with `plugin "<name>": <phase>: <message>` and the Error's code (kUser when it
/// has none). Field errors of a validation go in the reply's `errors`, not in an Error.
using PluginReply = Result<std::optional<std::string>>;

/// The base class of a plugin written in C++: override the phase methods of the extension
/// points it takes part in (Kubeflow's interfaces, trainer/plugin.h); Plugin::create<T>() hands
/// the library a callback for exactly the methods T declares (as public members, with these
/// signatures), so a plugin that does not declare `status` leaves room for another
/// TrainJobStatus plugin. A method may throw: the exception becomes an error of the phase
/// (kUser, `uncaught exception: <what()>`), never a crash.
///
/// Thread-safety: the methods are called from any thread and concurrently (renders on several
/// threads, the controller's workers), hence `const`; state they change must be synchronized
/// by the plugin. They must not call back into the framework the plugin belongs to.
class PluginBase {
 public:
  PluginBase() = default;
  PluginBase(const PluginBase&) = delete;
  PluginBase& operator=(const PluginBase&) = delete;
  virtual ~PluginBase() = default;

  /// Admission checks of a TrainJob; reply `errors` (field errors) and `warnings`.
  [[nodiscard]] virtual PluginReply validate(const PluginRequest& /*request*/) const {
    return std::optional<std::string>();
  }
  /// Counts, env, ports, volumes; reply an `info` patch and/or a `trainJob` patch.
  [[nodiscard]] virtual PluginReply enforce_ml_policy(const PluginRequest& /*request*/) const {
    return std::optional<std::string>();
  }
  /// Gang-scheduling labels and annotations; reply an `info` patch.
  [[nodiscard]] virtual PluginReply enforce_pod_group_policy(
      const PluginRequest& /*request*/) const {
    return std::optional<std::string>();
  }
  /// Pod spec concerns without a policy; reply an `info` patch.
  [[nodiscard]] virtual PluginReply enforce_pod_spec(const PluginRequest& /*request*/) const {
    return std::optional<std::string>();
  }
  /// `info` against the concrete template; reply an `info` patch.
  [[nodiscard]] virtual PluginReply pre_build_sync(const PluginRequest& /*request*/) const {
    return std::optional<std::string>();
  }
  /// Extra objects to create; reply `objects`.
  [[nodiscard]] virtual PluginReply build(const PluginRequest& /*request*/) const {
    return std::optional<std::string>();
  }
  /// Refines the TrainJob status the controller derived; reply a `status` merge patch.
  [[nodiscard]] virtual PluginReply status(const PluginRequest& /*request*/) const {
    return std::optional<std::string>();
  }
};

namespace detail {

using PluginMethod = PluginReply (PluginBase::*)(const PluginRequest&) const;

/// Whether a class declares the phase method whose pointer is `method` (`&T::build`): one it
/// inherits unchanged from PluginBase has PluginBase's member pointer type.
template <class M>
constexpr bool declares(M /*method*/) noexcept {
  return !std::is_same_v<M, PluginMethod>;
}

/// Sets the reply's error message to "<what>: <text>", without allocating (the message is
/// copied by the library; a long one is cut).
inline void plugin_reply_error(trainer_plugin_reply* reply, const char* what,
                               const char* text) noexcept {
  char message[1024];
  std::snprintf(message, sizeof message, "%s: %s", what, text);
  trainer_plugin_reply_set_error(reply, message);
}

/// The C callback of phase `Method`: calls it on the plugin object (the user data) and turns
/// its reply, Error or exception into the C reply and status. Nothing unwinds into C.
template <PluginMethod Method>
trainer_status plugin_trampoline(void* user, const trainer_plugin_request* request,
                                 trainer_plugin_reply* reply) noexcept {
  try {
    const PluginBase& plugin = *static_cast<const PluginBase*>(user);
    const PluginReply result = (plugin.*Method)(PluginRequest(request));
    if (!result) {
      trainer_plugin_reply_set_error(reply, result.error().message.c_str());
      const auto code = static_cast<trainer_status>(result.error().code);
      return code < 0 ? code : TRAINER_E_USER;
    }
    if (!result->has_value()) return TRAINER_OK;
    const std::string& json = **result;
    return trainer_plugin_reply_set(reply, json.data(), json.size());
  } catch (const std::exception& e) {
    plugin_reply_error(reply, "uncaught exception", e.what());
    return TRAINER_E_USER;
  } catch (...) {
    plugin_reply_error(reply, "uncaught exception", "not a std::exception");
    return TRAINER_E_USER;
  }
}

inline void plugin_free(void* user) noexcept {
  delete static_cast<PluginBase*>(user);
}

}  // namespace detail

/// A plugin (trainer_plugin): move-only owner until it is added to a Framework.
class Plugin {
 public:
  /// A plugin named `name` from a C++ object (trainer_plugin_new): the library calls `impl`'s
  /// phase methods that T declares (see PluginBase) and deletes `impl` when the plugin is freed.
  /// On failure `impl` is deleted here. Errors: kInvalidArgument (no object; a name that is
  /// empty, longer than 63 bytes or not of letters, digits, `-`, `_`, `.`).
  template <class T>
  [[nodiscard]] static Result<Plugin> create(const std::string& name, std::unique_ptr<T> impl) {
    static_assert(std::is_base_of_v<PluginBase, T>, "a plugin object derives from PluginBase");
    if (!impl) return fail(ErrorCode::kInvalidArgument, "abi::Plugin::create: no plugin object");
    trainer_plugin_descriptor desc{};
    desc.abi_version = TRAINER_PLUGIN_ABI_VERSION;
    desc.name = name.c_str();
    desc.user_data = static_cast<PluginBase*>(impl.get());
    desc.user_data_free = detail::plugin_free;
    using detail::declares;
    using detail::plugin_trampoline;
    if (declares(&T::validate)) desc.validate = plugin_trampoline<&PluginBase::validate>;
    if (declares(&T::enforce_ml_policy)) {
      desc.enforce_ml_policy = plugin_trampoline<&PluginBase::enforce_ml_policy>;
    }
    if (declares(&T::enforce_pod_group_policy)) {
      desc.enforce_pod_group_policy = plugin_trampoline<&PluginBase::enforce_pod_group_policy>;
    }
    if (declares(&T::enforce_pod_spec)) {
      desc.enforce_pod_spec = plugin_trampoline<&PluginBase::enforce_pod_spec>;
    }
    if (declares(&T::pre_build_sync)) {
      desc.pre_build_sync = plugin_trampoline<&PluginBase::pre_build_sync>;
    }
    if (declares(&T::build)) desc.build = plugin_trampoline<&PluginBase::build>;
    if (declares(&T::status)) desc.status = plugin_trampoline<&PluginBase::status>;
    trainer_plugin* plugin = nullptr;
    trainer_error* err = nullptr;
    const trainer_status status = trainer_plugin_new(&desc, &plugin, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    static_cast<void>(impl.release());  // the plugin owns it now (plugin_free)
    return Plugin(plugin);
  }

  /// Loads the plugin library at `path` (trainer_plugin_load: dlopen, then its
  /// `trainer_plugin_entry`). Errors: kIo (not loadable, dlerror()'s text), kNotFound (no entry
  /// symbol), kUser (the entry refused), kUnsupported (another plugin ABI), each naming `path`.
  [[nodiscard]] static Result<Plugin> load(const std::string& path) {
    trainer_plugin* plugin = nullptr;
    trainer_error* err = nullptr;
    const trainer_status status = trainer_plugin_load(path.c_str(), &plugin, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return Plugin(plugin);
  }

  /// Takes ownership of a C handle.
  explicit Plugin(trainer_plugin* owned) noexcept : plugin_(owned) {}

  /// The registry name (valid while this object owns the plugin).
  [[nodiscard]] std::string_view name() const noexcept {
    return detail::view(trainer_plugin_name(plugin_.get()));
  }
  /// The C handle (still owned by this object).
  [[nodiscard]] trainer_plugin* raw() const noexcept { return plugin_.get(); }
  /// Gives up ownership of the C handle (Framework::add takes it this way).
  [[nodiscard]] trainer_plugin* release() noexcept { return plugin_.release(); }

 private:
  struct Deleter {
    void operator()(trainer_plugin* p) const noexcept { trainer_plugin_free(p); }
  };
  std::unique_ptr<trainer_plugin, Deleter> plugin_;
};

/// The plugins of one pipeline (trainer_framework): the built-in plugins for a set of feature
/// gates, then the added ones, in the order added. Move-only owner of one reference: render,
/// validation and apply borrow it for the call, a Controller keeps a reference of its own. Add
/// plugins from one thread; once in use it may serve any number of threads.
class Framework {
 public:
  /// The built-in plugins for `feature_gates` (`TrainJobStatus=true,...`; "": all off).
  /// Errors: kInvalidArgument (malformed or unknown gates).
  [[nodiscard]] static Result<Framework> create(const std::string& feature_gates = {}) {
    trainer_framework* framework = nullptr;
    trainer_error* err = nullptr;
    const trainer_status status =
        trainer_framework_new(detail::c_str(feature_gates), &framework, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return Framework(framework);
  }

  /// Takes ownership of a C handle (one reference).
  explicit Framework(trainer_framework* owned) noexcept : framework_(owned) {}

  /// Adds `plugin` after the plugins already there (trainer_framework_add); the framework
  /// takes it also when the call fails. Errors: kInvalid (a name a built-in or added plugin
  /// has: `plugin name "X" is already registered`; a second plugin with a status phase).
  [[nodiscard]] Result<void> add(Plugin plugin) {
    trainer_error* err = nullptr;
    const trainer_status status = trainer_framework_add(framework_.get(), plugin.release(), &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return {};
  }

  /// Number of plugins, built-in and added.
  [[nodiscard]] std::size_t size() const noexcept {
    return trainer_framework_plugin_count(framework_.get());
  }
  /// Every plugin's name, in framework order.
  [[nodiscard]] std::vector<std::string> plugin_names() const {
    std::vector<std::string> out;
    const std::size_t n = size();
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      out.emplace_back(detail::view(trainer_framework_plugin_name(framework_.get(), i)));
    }
    return out;
  }

  /// The C handle (still owned by this object).
  [[nodiscard]] trainer_framework* raw() const noexcept { return framework_.get(); }

 private:
  struct Deleter {
    void operator()(trainer_framework* f) const noexcept { trainer_framework_free(f); }
  };
  std::unique_ptr<trainer_framework, Deleter> framework_;
};

}  // namespace trainer::abi
