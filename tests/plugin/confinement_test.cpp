// SPDX-License-Identifier: Apache-2.0
//
// A plugin must not write outside its TrainJob (docs/plugins.md, "What a plugin may change"):
// an enforceMLPolicy reply may change the TrainJob's spec only, a build may return only
// namespaced objects in the TrainJob's namespace that the TrainJob controls, and a reply is at
// most 4 MiB, refused before it is copied. The same rules hold for C plugins (their reply) and
// in-process C++ plugins (what they do to the TrainJob and what they return), since the
// Framework checks both.
#include "plugin/plugin_internal.hpp"
#include "plugin_test_support.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <cstring>

namespace json = boost::json;
using namespace plugintest;
using trainer::ErrorCode;

namespace {

// user_data: the reply text.
trainer_status confinement_reply(void* user_data, const trainer_plugin_request*,
                                 trainer_plugin_reply* reply) {
  const char* text = static_cast<const char*>(user_data);
  return trainer::detail::plugin_reply_set(reply, text, std::strlen(text));
}

std::shared_ptr<const trainer::Framework> c_plugin(bool ml_policy, const char* reply) {
  trainer_plugin_descriptor desc{};
  desc.abi_version = (1U << 16U);
  desc.name = "Evil";
  desc.user_data = const_cast<char*>(reply);  // NOLINT: read only
  (ml_policy ? desc.enforce_ml_policy : desc.build) = confinement_reply;
  auto plugin = trainer::plugin_from_descriptor(desc);
  REQUIRE(plugin);
  std::vector<std::shared_ptr<trainer::Plugin>> plugins;
  plugins.push_back(std::move(*plugin));
  return framework_of(std::move(plugins));
}

trainer::Error render_error(const trainer::Framework* fw, trainer::RenderContext ctx = context()) {
  trainer::RenderDocumentsOptions options;
  options.framework = fw;
  auto out = trainer::render_documents(docs(runtime_yaml() + "---\n" + job_yaml()), ctx, options);
  REQUIRE_FALSE(out);
  return out.error();
}

// An in-process C++ plugin: `move_to` rewrites the TrainJob's namespace in enforce_ml_policy
// (when set), `objects` are what its build returns.
class CppPlugin final : public trainer::EnforceMLPolicyPlugin,
                        public trainer::ComponentBuilderPlugin {
 public:
  CppPlugin(std::string move_to, std::vector<json::value> objects)
      : move_to_(std::move(move_to)), objects_(std::move(objects)) {}
  std::string_view name() const override { return "CppEvil"; }
  trainer::Phases phases() const override {
    return {trainer::Phase::kEnforceMLPolicy, trainer::Phase::kComponentBuilder};
  }
  trainer::Result<void> enforce_ml_policy(trainer::Info&, trainer::TrainJob& job,
                                          const trainer::PluginContext&) override {
    if (!move_to_.empty()) job.metadata.namespace_ = move_to_;
    return {};
  }
  trainer::Result<std::vector<json::value>> build(const trainer::Info&, const trainer::TrainJob&,
                                                  const trainer::PluginContext&) override {
    return objects_;
  }

 private:
  std::string move_to_;
  std::vector<json::value> objects_;
};

std::shared_ptr<const trainer::Framework> cpp_plugin(std::string move_to,
                                                     std::vector<json::value> objects) {
  std::vector<std::shared_ptr<trainer::Plugin>> plugins;
  plugins.push_back(std::make_unique<CppPlugin>(std::move(move_to), std::move(objects)));
  return framework_of(std::move(plugins));
}

const char kCrb[] = R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding",
    "metadata":{"name":"evil"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",
    "kind":"ClusterRole","name":"cluster-admin"},
    "subjects":[{"kind":"ServiceAccount","name":"default","namespace":"default"}]})";

}  // namespace

TEST_CASE("an enforceMLPolicy reply may change the TrainJob's spec only", "[plugin]") {
  struct Case {
    const char* patch;
    const char* path;
  };
  const Case cases[] = {
      {R"({"trainJob":{"metadata":{"namespace":"kube-system"}}})", "trainJob.metadata.namespace"},
      {R"({"trainJob":{"metadata":{"uid":"someone-else"}}})", "trainJob.metadata.uid"},
      {R"({"trainJob":{"metadata":{"name":"other"}}})", "trainJob.metadata.name"},
      {R"({"trainJob":{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"Namespace",
          "name":"kube-system","uid":"u","controller":true}]}}})",
       "trainJob.metadata.ownerReferences"},
      {R"({"trainJob":{"metadata":{"labels":{"a":"b"}}}})", "trainJob.metadata.labels"},
      {R"({"trainJob":{"metadata":{"finalizers":["x/y"]}}})", "trainJob.metadata.finalizers"},
      {R"({"trainJob":{"status":{"conditions":[]}}})", "trainJob.status"},
  };
  for (const auto& c : cases) {
    INFO(c.patch);
    auto fw = c_plugin(true, c.patch);
    const trainer::Error e = render_error(fw.get());
    INFO(e.message);
    CHECK(e.code == ErrorCode::kInvalid);
    CHECK(e.message == std::string("plugin \"Evil\": enforceMLPolicy: ") + c.path +
                           ": Forbidden: a plugin may change only the TrainJob's spec");
    REQUIRE(e.fields.size() == 1);
    CHECK(e.fields[0].path == c.path);
    CHECK(e.fields[0].type == trainer::FieldErrorType::kForbidden);
  }
  // The same value is no change; the spec may change.
  auto same = c_plugin(true, R"({"trainJob":{"metadata":{"namespace":"default"},
      "spec":{"trainer":{"command":["python","x.py"]}}}})");
  auto out = render(runtime_yaml() + "---\n" + job_yaml(), same.get());
  INFO((out ? std::string() : out.error().message));
  REQUIRE(out);
  CHECK(find_kind(out->objects, "JobSet")->at("metadata").at("namespace") == "default");
}

TEST_CASE("an in-process plugin that moves the TrainJob is refused", "[plugin]") {
  auto fw = cpp_plugin("kube-system", {});
  const trainer::Error e = render_error(fw.get());
  CHECK(e.code == ErrorCode::kInvalid);
  CHECK(e.message ==
        "plugin \"CppEvil\": enforceMLPolicy: trainJob.metadata.namespace: Forbidden: a plugin "
        "may change only the TrainJob's spec");
}

TEST_CASE("a build may return only namespaced objects the TrainJob controls", "[plugin]") {
  struct Case {
    std::string object;
    const char* message;
  };
  const Case cases[] = {
      {kCrb,
       "plugin \"Evil\": build: objects[0].kind: Forbidden: ClusterRoleBinding \"evil\" "
       "(rbac.authorization.k8s.io/v1) is not known to be namespaced: a plugin builds only "
       "namespaced objects"},
      {R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"}})",
       "plugin \"Evil\": build: objects[0].kind: Forbidden: Namespace \"x\" (v1) is not known to "
       "be namespaced: a plugin builds only namespaced objects"},
      {R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}})",
       "plugin \"Evil\": build: objects[0].kind: Forbidden: Widget \"w\" (example.com/v1) is not "
       "known to be namespaced: a plugin builds only namespaced objects"},
      {R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c",
          "namespace":"kube-system"}})",
       "plugin \"Evil\": build: objects[0].metadata.namespace: Forbidden: ConfigMap \"c\" (v1) "
       "must be in the TrainJob's namespace \"default\""},
      {R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","ownerReferences":[
          {"apiVersion":"v1","kind":"ConfigMap","name":"c0","uid":"u0"},
          {"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"u","controller":true}]}})",
       "plugin \"Evil\": build: objects[0].metadata.ownerReferences[1]: Forbidden: ConfigMap "
       "\"c\" (v1) names another controller, Deployment \"d\": its controller must be TrainJob "
       "\"j\""},
      {R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","ownerReferences":[
          {"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","name":"j",
           "uid":"not-its-uid","controller":true}]}})",
       "plugin \"Evil\": build: objects[0].metadata.ownerReferences[0]: Forbidden: ConfigMap "
       "\"c\" (v1) names another controller, TrainJob \"j\": its controller must be TrainJob "
       "\"j\""},
  };
  for (const auto& c : cases) {
    INFO(c.object);
    const std::string reply = R"({"objects":[)" + c.object + "]}";
    auto fw = c_plugin(false, reply.c_str());
    const trainer::Error e = render_error(fw.get());
    CHECK(e.code == ErrorCode::kInvalid);
    CHECK(e.message == c.message);
    // An in-process plugin's objects meet the same rule.
    auto cpp = cpp_plugin("", {json::parse(c.object)});
    const trainer::Error ce = render_error(cpp.get());
    CHECK(ce.message == "plugin \"CppEvil\"" + e.message.substr(std::strlen("plugin \"Evil\"")));
  }
}

TEST_CASE("a build object is completed with the namespace and the controller reference",
          "[plugin]") {
  // An in-process plugin's object gets what a C plugin's gets; a non-controller owner stays.
  auto fw = cpp_plugin("", {json::parse(R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"c","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap",
      "name":"c0","uid":"u0"}]}})")});
  auto out = render(runtime_yaml() + "---\n" + job_yaml(), fw.get());
  INFO((out ? std::string() : out.error().message));
  REQUIRE(out);
  const json::value* cm = nullptr;
  for (const auto& o : out->objects) {
    if (o.at("metadata").at("name") == "c") cm = &o;
  }
  REQUIRE(cm != nullptr);
  CHECK(cm->at("metadata").at("namespace") == "default");
  CHECK(cm->at("metadata").at("ownerReferences") ==
        json::parse(R"([{"apiVersion":"v1","kind":"ConfigMap","name":"c0","uid":"u0"},
          {"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","name":"j",
           "uid":"uid-1","controller":true,"blockOwnerDeletion":true}])"));
}

TEST_CASE("with a cluster, its discovery decides which kinds are namespaced", "[plugin]") {
  std::vector<std::string> asked;
  trainer::RenderContext ctx = context();
  ctx.namespaced = [&asked](std::string_view api_version,
                            std::string_view kind) -> trainer::Result<bool> {
    asked.push_back(std::string(api_version) + " " + std::string(kind));
    if (kind == "ClusterRoleBinding") return false;
    if (kind == "Widget") return true;
    if (kind == "Gadget") return trainer::fail(ErrorCode::kIo, "connection refused");
    if (kind == "JobSet" || kind == "ConfigMap") return true;
    return trainer::fail(ErrorCode::kNotFound, "the server doesn't have a resource type \"" +
                                                   std::string(kind) + "\" in \"" +
                                                   std::string(api_version) + "\"");
  };
  const std::string crb_reply = std::string(R"({"objects":[)") + kCrb + "]}";
  auto crb = c_plugin(false, crb_reply.c_str());
  trainer::Error e = render_error(crb.get(), ctx);
  CHECK(e.message ==
        "plugin \"Evil\": build: objects[0].kind: Forbidden: ClusterRoleBinding \"evil\" "
        "(rbac.authorization.k8s.io/v1) is cluster-scoped: a plugin builds only namespaced "
        "objects, in the TrainJob's namespace");
  CHECK(std::find(asked.begin(), asked.end(), "rbac.authorization.k8s.io/v1 ClusterRoleBinding") !=
        asked.end());

  auto unknown = cpp_plugin(
      "",
      {json::parse(R"({"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"t"}})")});
  e = render_error(unknown.get(), ctx);
  CHECK(e.message ==
        "plugin \"CppEvil\": build: objects[0].kind: Forbidden: Thing \"t\" (example.com/v1) is "
        "not known to be namespaced (the server doesn't have a resource type \"Thing\" in "
        "\"example.com/v1\"): a plugin builds only namespaced objects");

  auto failing = cpp_plugin(
      "",
      {json::parse(R"({"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"}})")});
  e = render_error(failing.get(), ctx);
  CHECK(e.code == ErrorCode::kIo);
  CHECK(
      e.message ==
      "plugin \"CppEvil\": build: objects[0] (Gadget \"g\" (example.com/v1)): connection refused");

  // A kind the fixed table lacks but the cluster serves as namespaced is accepted.
  auto widget = cpp_plugin(
      "",
      {json::parse(R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}})")});
  trainer::RenderDocumentsOptions options;
  options.framework = widget.get();
  auto out = trainer::render_documents(docs(runtime_yaml() + "---\n" + job_yaml()), ctx, options);
  INFO((out ? std::string() : out.error().message));
  REQUIRE(out);
  CHECK(find_kind(out->objects, "Widget")->at("metadata").at("namespace") == "default");
}

namespace {

// Reports a reply length far beyond its buffer: copying it would read out of bounds.
trainer_status huge_reply(void*, const trainer_plugin_request*, trainer_plugin_reply* reply) {
  static const char text[] = "{}";
  const trainer_status st = trainer::detail::plugin_reply_set(reply, text, std::size_t{1} << 40U);
  // Even a plugin that ignores the refusal gets no reply through.
  return st == TRAINER_E_LIMIT ? TRAINER_OK : TRAINER_E_INTERNAL;
}

// A reply of exactly the limit: `{}` padded with spaces.
trainer_status limit_reply(void*, const trainer_plugin_request*, trainer_plugin_reply* reply) {
  static const std::string text =
      "{}" + std::string(trainer::detail::kMaxPluginReplyBytes - 2, ' ');
  return trainer::detail::plugin_reply_set(reply, text.data(), text.size());
}

}  // namespace

TEST_CASE("a reply over 4 MiB is refused before it is copied", "[plugin]") {
  CHECK(trainer::detail::kMaxPluginReplyBytes == 4U * 1024U * 1024U);
  for (const bool build : {false, true}) {
    trainer_plugin_descriptor desc{};
    desc.abi_version = (1U << 16U);
    desc.name = "Big";
    (build ? desc.build : desc.enforce_ml_policy) = huge_reply;
    auto plugin = trainer::plugin_from_descriptor(desc);
    REQUIRE(plugin);
    std::vector<std::shared_ptr<trainer::Plugin>> plugins;
    plugins.push_back(std::move(*plugin));
    auto fw = framework_of(std::move(plugins));
    const trainer::Error e = render_error(fw.get());
    CHECK(e.code == ErrorCode::kLimit);
    CHECK(e.message == std::string("plugin \"Big\": ") + (build ? "build" : "enforceMLPolicy") +
                           ": reply: 1099511627776 bytes exceeds the limit of a plugin reply "
                           "(4194304 bytes)");
  }
  trainer_plugin_descriptor desc{};
  desc.abi_version = (1U << 16U);
  desc.name = "AtLimit";
  desc.build = limit_reply;
  auto plugin = trainer::plugin_from_descriptor(desc);
  REQUIRE(plugin);
  std::vector<std::shared_ptr<trainer::Plugin>> plugins;
  plugins.push_back(std::move(*plugin));
  auto fw = framework_of(std::move(plugins));
  auto out = render(runtime_yaml() + "---\n" + job_yaml(), fw.get());
  INFO((out ? std::string() : out.error().message));
  CHECK(out);
}
