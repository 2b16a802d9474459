// SPDX-License-Identifier: Apache-2.0
//
// trainer.hpp's plugins (abi::PluginBase, abi::Plugin, abi::Framework) over libtrainer.so: a
// plugin written as a C++ class, in process, on runtimes labelled
// trainer.kubeflow.org/framework=cpptest: its env reaches the rendered JobSet, its validation
// error reaches render, Document::validate_with and a cluster apply (refused before the server is
// contacted) with the field path, an exception or an Error from a phase method becomes an error
// of the render (never a crash), refusals (duplicate and built-in names, a second status plugin, a
// bad name), the request accessors, and a plugin library loaded with Plugin::load.
#include "temp_dir.hpp"
#include "trainer.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef TRAINER_TEST_PLUGIN_MODULE
#error "TRAINER_TEST_PLUGIN_MODULE must be defined"
#endif

namespace {

namespace abi = trainer::abi;
using trainer::ErrorCode;

constexpr const char* kFrameworkLabel = "/info/runtime/labels/trainer.kubeflow.org~1framework";

/// A ClusterTrainingRuntime `name` labelled framework=`framework`, one replicated job `node`.
std::string runtime(const std::string& name, const std::string& framework) {
  return R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: )" +
         name + R"(
  labels:
    trainer.kubeflow.org/framework: )" +
         framework + R"(
spec:
  mlPolicy:
    numNodes: 1
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: example.com/trainer:1
)";
}

/// The runtimes, then a TrainJob `job` on `runtime_name` with `nodes` nodes.
std::string job(const std::string& runtime_name, int nodes) {
  return runtime("cpptest-rt", "cpptest") + "---\n" + runtime("torch-rt", "torch") + "---\n" +
         runtime("loaded-rt", "loaded") +
         "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n"
         "  name: job\n  namespace: default\nspec:\n  runtimeRef:\n    name: " +
         runtime_name + "\n  trainer:\n    numNodes: " + std::to_string(nodes) + "\n";
}

/// What the plugin saw of its requests, shared with the test.
struct Seen {
  std::mutex mutex;
  std::vector<std::string> phases;
  std::vector<std::string> names;  // /trainJob/metadata/name, as JSON text
  bool json_ok = true;
};

/// The C++ plugin under test. On a cpptest runtime: validate allows at most 4 nodes; the
/// ML policy adds CPPTEST_NODES=<numNodes> to the node container, throws on 3 nodes and
/// fails with an Error on 1 node. It declares no status phase.
class CppTest : public abi::PluginBase {
 public:
  explicit CppTest(std::shared_ptr<Seen> seen) : seen_(std::move(seen)) {}

  abi::PluginReply validate(const abi::PluginRequest& request) const override {
    if (!mine(request, "validate")) return std::optional<std::string>();
    const auto nodes = request.get_int("/trainJob/spec/trainer/numNodes");
    if (!nodes || *nodes <= 4) return std::optional<std::string>();
    return std::optional<std::string>(
        R"({"errors":[{"type":"FieldValueInvalid","field":"spec.trainer.numNodes","value":)" +
        std::to_string(*nodes) +
        R"(,"detail":"cpptest supports at most 4 nodes"}],)"
        R"("warnings":["cpptest was here"]})");
  }

  abi::PluginReply enforce_ml_policy(const abi::PluginRequest& request) const override {
    if (!mine(request, "enforceMLPolicy")) return std::optional<std::string>();
    const auto nodes = request.get_int("/trainJob/spec/trainer/numNodes").value_or(0);
    if (nodes == 3) throw std::runtime_error("three is unlucky");
    if (nodes == 1) return trainer::fail(ErrorCode::kUnsupported, "one node is not enough");
    return std::optional<std::string>(
        R"({"info":{"podSets":[{"name":"node","containers":[{"name":"node","env":[)"
        R"({"name":"CPPTEST_NODES","value":")" +
        std::to_string(nodes) + R"("}]}]}]}})");
  }

 private:
  /// Whether the request is for a cpptest runtime; records what it saw.
  bool mine(const abi::PluginRequest& request, const char* phase) const {
    const std::lock_guard<std::mutex> lock(seen_->mutex);
    seen_->phases.emplace_back(phase);
    seen_->names.emplace_back(request.get("/trainJob/metadata/name").value_or("(absent)"));
    const std::string_view json = request.json();
    seen_->json_ok = seen_->json_ok && !json.empty() && json.front() == '{' &&
                     request.get_string("/phase") == std::optional<std::string_view>(phase);
    return request.get_string(kFrameworkLabel) == std::optional<std::string_view>("cpptest") &&
           !request.get("not a pointer").has_value();
  }

  std::shared_ptr<Seen> seen_;
};

/// A plugin that declares the status phase (and nothing else).
class StatusOnly : public abi::PluginBase {
 public:
  abi::PluginReply status(const abi::PluginRequest&) const override {
    return std::optional<std::string>();
  }
};

/// A framework of the built-in plugins plus CppTest.
abi::Framework framework_with_cpptest(const std::shared_ptr<Seen>& seen) {
  auto framework = abi::Framework::create();
  REQUIRE(framework.has_value());
  auto plugin = abi::Plugin::create("CppTest", std::make_unique<CppTest>(seen));
  INFO((plugin ? std::string() : plugin.error().message));
  REQUIRE(plugin.has_value());
  CHECK(plugin->name() == "CppTest");
  auto added = framework->add(std::move(*plugin));
  INFO((added ? std::string() : added.error().message));
  REQUIRE(added.has_value());
  return std::move(*framework);
}

/// The JobSet's JSON among the rendered objects of `text` ("" when the render failed).
std::string jobset(const std::string& text, const abi::RenderOptions& options) {
  auto result = abi::render(text, options);
  INFO((result ? std::string() : result.error().message));
  REQUIRE(result.has_value());
  for (const auto& object : result->objects()) {
    if (object.kind == "JobSet") return std::string(object.json);
  }
  FAIL("no JobSet rendered");
  return {};
}

const char* const kEnv = R"({"name":"CPPTEST_NODES","value":"2"})";

}  // namespace

TEST_CASE("trainer.hpp plugins: an in-process C++ plugin changes the render") {
  auto seen = std::make_shared<Seen>();
  {
    abi::Framework framework = framework_with_cpptest(seen);
    const auto names = framework.plugin_names();
    REQUIRE(names.size() == framework.size());
    CHECK(names.back() == "CppTest");
    CHECK(std::count(names.begin(), names.end(), "Torch") == 1);  // the built-ins come first

    abi::RenderOptions options;
    options.framework = &framework;
    CHECK(jobset(job("cpptest-rt", 2), options).find(kEnv) != std::string::npos);
    // Another framework's runtime, and a render without the framework, are untouched.
    CHECK(jobset(job("torch-rt", 2), options).find("CPPTEST_NODES") == std::string::npos);
    CHECK(jobset(job("cpptest-rt", 2), {}).find("CPPTEST_NODES") == std::string::npos);

    // The request accessors saw the TrainJob and the phase.
    {
      const std::lock_guard<std::mutex> lock(seen->mutex);
      CHECK(seen->json_ok);
      REQUIRE_FALSE(seen->names.empty());
      CHECK(seen->names.front() == "\"job\"");
      CHECK(std::count(seen->phases.begin(), seen->phases.end(), "enforceMLPolicy") >= 2);
    }

    // A framework brings its gates: feature gates as well are refused.
    options.feature_gates = "TrainJobStatus=true";
    auto both = abi::render(job("cpptest-rt", 2), options);
    REQUIRE_FALSE(both.has_value());
    CHECK(both.error().code == ErrorCode::kInvalidArgument);
    CHECK(both.error().message.find("feature_gates") != std::string::npos);
    CHECK(seen.use_count() == 2);  // the plugin object holds one
  }
  CHECK(seen.use_count() == 1);  // deleted with the framework
}

TEST_CASE("trainer.hpp plugins: the plugin's validation error reaches validate and render") {
  auto seen = std::make_shared<Seen>();
  abi::Framework framework = framework_with_cpptest(seen);
  auto list = abi::DocumentList::parse(job("cpptest-rt", 8));
  REQUIRE(list.has_value());
  REQUIRE(list->size() == 4);
  for (auto doc : list->documents()) REQUIRE(doc.apply_defaults().has_value());
  abi::Document trainjob = (*list)[3];
  REQUIRE(trainjob.kind() == "TrainJob");

  // The built-in rules alone admit it.
  auto plain = trainjob.validate(&*list);
  REQUIRE(plain.has_value());
  CHECK(plain->ok());

  auto checked = trainjob.validate_with(framework, &*list);
  REQUIRE(checked.has_value());
  REQUIRE_FALSE(checked->ok());
  CHECK(checked->error->code == ErrorCode::kInvalid);
  REQUIRE(checked->error->fields.size() == 1);
  CHECK(checked->error->fields[0].path == "spec.trainer.numNodes");
  CHECK(checked->error->fields[0].type == trainer::FieldErrorType::kInvalid);
  CHECK(checked->error->fields[0].detail == "cpptest supports at most 4 nodes");
  CHECK(checked->error->fields[0].value == boost::json::value(8));
  // The reply's warnings join the admission warnings.
  CHECK(std::count(checked->warnings.begin(), checked->warnings.end(), "cpptest was here") == 1);

  abi::RenderOptions options;
  options.framework = &framework;
  auto rendered = abi::render(job("cpptest-rt", 8), options);
  REQUIRE_FALSE(rendered.has_value());
  CHECK(rendered.error().code == ErrorCode::kInvalid);
  REQUIRE(rendered.error().fields.size() == 1);
  CHECK(rendered.error().fields[0].path == "spec.trainer.numNodes");
}

TEST_CASE("trainer.hpp plugins: apply refuses the plugin's field error before the server") {
  auto seen = std::make_shared<Seen>();
  abi::Framework framework = framework_with_cpptest(seen);
  const trainer::testing::TempDir dir("trainer-cpp-plugin");
  const std::string kubeconfig = dir / "kubeconfig";
  std::ofstream(kubeconfig) << R"(apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: default}}]
current-context: x
)";
  abi::ClientOptions client_options;
  client_options.kubeconfig = kubeconfig;
  client_options.request_timeout = std::chrono::milliseconds(5000);
  auto client = abi::Client::create(client_options);
  REQUIRE(client.has_value());
  abi::ApplyOptions options;
  options.framework = &framework;
  auto applied = client->apply(job("cpptest-rt", 8), options);
  REQUIRE_FALSE(applied.has_value());
  CHECK(applied.error().code == ErrorCode::kInvalid);
  REQUIRE(applied.error().fields.size() == 1);
  CHECK(applied.error().fields[0].path == "spec.trainer.numNodes");
}

TEST_CASE("trainer.hpp plugins: an exception or an Error in a phase method fails the render") {
  auto seen = std::make_shared<Seen>();
  abi::Framework framework = framework_with_cpptest(seen);
  abi::RenderOptions options;
  options.framework = &framework;

  auto thrown = abi::render(job("cpptest-rt", 3), options);
  REQUIRE_FALSE(thrown.has_value());
  CHECK(thrown.error().code == ErrorCode::kUser);
  CHECK(thrown.error().message.find("CppTest") != std::string::npos);
  CHECK(thrown.error().message.find("three is unlucky") != std::string::npos);

  auto failed = abi::render(job("cpptest-rt", 1), options);
  REQUIRE_FALSE(failed.has_value());
  CHECK(failed.error().code == ErrorCode::kUnsupported);
  CHECK(failed.error().message.find("one node is not enough") != std::string::npos);

  // The framework still works afterwards.
  CHECK(jobset(job("cpptest-rt", 2), options).find(kEnv) != std::string::npos);
}

TEST_CASE("trainer.hpp plugins: refusals") {
  auto seen = std::make_shared<Seen>();
  abi::Framework framework = framework_with_cpptest(seen);
  const std::size_t n = framework.size();

  // A name taken by an added plugin or a built-in one; the refused plugin is deleted.
  auto other = std::make_shared<Seen>();
  auto duplicate = abi::Plugin::create("CppTest", std::make_unique<CppTest>(other));
  REQUIRE(duplicate.has_value());
  auto refused = framework.add(std::move(*duplicate));
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == ErrorCode::kInvalid);
  CHECK(refused.error().message == "plugin name \"CppTest\" is already registered");
  CHECK(other.use_count() == 1);
  auto builtin = abi::Plugin::create("Torch", std::make_unique<CppTest>(other));
  REQUIRE(builtin.has_value());
  auto taken = framework.add(std::move(*builtin));
  REQUIRE_FALSE(taken.has_value());
  CHECK(taken.error().message == "plugin name \"Torch\" is taken by a built-in plugin");
  CHECK(framework.size() == n);

  // A bad name: refused before the library owns the object, which is deleted here.
  auto bad = abi::Plugin::create("no spaces", std::make_unique<CppTest>(other));
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().code == ErrorCode::kInvalidArgument);
  CHECK(other.use_count() == 1);
  auto none = abi::Plugin::create<CppTest>("Nothing", nullptr);
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().code == ErrorCode::kInvalidArgument);

  auto gates = abi::Framework::create("Nope=true");
  REQUIRE_FALSE(gates.has_value());
  CHECK(gates.error().code == ErrorCode::kInvalidArgument);
}

TEST_CASE("trainer.hpp plugins: only the phases a class declares are registered") {
  // CppTest declares no status phase, so one status plugin fits beside it, a second does not.
  static_assert(!abi::detail::declares(&CppTest::status));
  static_assert(abi::detail::declares(&CppTest::validate));
  static_assert(abi::detail::declares(&StatusOnly::status));
  auto seen = std::make_shared<Seen>();
  abi::Framework framework = framework_with_cpptest(seen);
  auto status1 = abi::Plugin::create("Status1", std::make_unique<StatusOnly>());
  REQUIRE(status1.has_value());
  auto first = framework.add(std::move(*status1));
  INFO((first ? std::string() : first.error().message));
  REQUIRE(first.has_value());
  auto status2 = abi::Plugin::create("Status2", std::make_unique<StatusOnly>());
  REQUIRE(status2.has_value());
  auto second = framework.add(std::move(*status2));
  REQUIRE_FALSE(second.has_value());
  CHECK(second.error().message == "too many TrainJobStatus plugins are registered");
}

TEST_CASE("trainer.hpp plugins: Plugin::load") {
  auto missing = abi::Plugin::load("/nonexistent/libnothing.so");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == ErrorCode::kIo);
  CHECK(missing.error().message.find("/nonexistent/libnothing.so") != std::string::npos);

  auto loaded = abi::Plugin::load(TRAINER_TEST_PLUGIN_MODULE);
  INFO((loaded ? std::string() : loaded.error().message));
  REQUIRE(loaded.has_value());
  CHECK(loaded->name() == "Loaded");
  auto framework = abi::Framework::create();
  REQUIRE(framework.has_value());
  REQUIRE(framework->add(std::move(*loaded)).has_value());
  abi::RenderOptions options;
  options.framework = &*framework;
  CHECK(jobset(job("loaded-rt", 2), options).find("LOADED_BY_PLUGIN") != std::string::npos);
}
