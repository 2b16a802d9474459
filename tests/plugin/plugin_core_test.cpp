// SPDX-License-Identifier: Apache-2.0
//
// C plugins loaded from shared libraries run in the pipeline like built-in plugins: the TestFw
// plugin's changes reach the JobSet and nothing else, its ConfigMap gets namespace and owner,
// the MaxNodes plugin's field error reaches admission and render, registration refuses taken
// names, and loading refuses a foreign ABI or a library without an entry point.
#include "plugin_test_support.hpp"
#include "trainer/admission.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <thread>

namespace json = boost::json;
using namespace plugintest;
using trainer::ErrorCode;

TEST_CASE("a C plugin's info patch reaches the JobSet and nothing else", "[plugin]") {
  auto fw = framework_of({});
  auto with = [&] {
    std::vector<std::shared_ptr<trainer::Plugin>> plugins;
    plugins.push_back(load(TESTFW_PLUGIN));
    return framework_of(std::move(plugins));
  }();
  const std::string input = runtime_yaml() + "---\n" + job_yaml();
  auto plain = render(input, fw.get());
  auto patched = render(input, with.get());
  INFO((patched ? std::string() : patched.error().message));
  REQUIRE(plain);
  REQUIRE(patched);
  // Everything the built-ins render is there unchanged, plus the plugin's ConfigMap.
  REQUIRE(patched->objects.size() == plain->objects.size() + 1);
  CHECK(*find_kind(patched->objects, "ConfigMap") == *find_kind(plain->objects, "ConfigMap"));

  // The JobSet is the built-ins' JobSet plus exactly the plugin's env, port, mount, volume and
  // label.
  json::value expected = *find_kind(plain->objects, "JobSet");
  expected.at("metadata").as_object()["labels"].emplace_object()["testfw.example.com/managed"] =
      "true";
  auto& pod = expected.at_pointer("/spec/replicatedJobs/0/template/spec/template/spec").as_object();
  auto& container = pod.at("containers").as_array().at(0).as_object();
  container["env"].emplace_array();
  container["env"].as_array().push_back(
      json::parse(R"({"name":"TESTFW_CONFIG","value":"/etc/testfw/config.json"})"));
  container["ports"].emplace_array().push_back(
      json::parse(R"({"containerPort":29400,"name":"testfw","protocol":"TCP"})"));
  container["volumeMounts"].emplace_array().push_back(
      json::parse(R"({"name":"testfw-config","mountPath":"/etc/testfw"})"));
  pod["volumes"].emplace_array().push_back(
      json::parse(R"({"name":"testfw-config","configMap":{"name":"testfw-config"}})"));
  const json::value& got = *find_kind(patched->objects, "JobSet");
  INFO(json::serialize(got));
  CHECK(got == expected);
}

TEST_CASE("a C plugin leaves TrainJobs of other runtimes alone", "[plugin]") {
  std::vector<std::shared_ptr<trainer::Plugin>> plugins;
  plugins.push_back(load(TESTFW_PLUGIN));
  auto with = framework_of(std::move(plugins));
  const std::string input = runtime_yaml("torch") + "---\n" + job_yaml();
  auto plain = render(input, nullptr);
  auto patched = render(input, with.get());
  REQUIRE(plain);
  REQUIRE(patched);
  CHECK(patched->objects == plain->objects);
}

TEST_CASE("a build-phase object gets the TrainJob's namespace and controller owner", "[plugin]") {
  std::vector<std::shared_ptr<trainer::Plugin>> plugins;
  plugins.push_back(load(TESTFW_PLUGIN));
  auto with = framework_of(std::move(plugins));
  auto out = render(runtime_yaml() + "---\n" + job_yaml(), with.get());
  REQUIRE(out);
  const json::value* cm = nullptr;
  for (const auto& o : out->objects) {
    if (o.at("metadata").at("name") == "testfw-config") cm = &o;
  }
  REQUIRE(cm != nullptr);
  CHECK(cm->at("metadata").at("namespace") == "default");
  CHECK(cm->at("metadata").at("ownerReferences") ==
        json::parse(R"([{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
          "name":"j","uid":"uid-1","controller":true,"blockOwnerDeletion":true}])"));
  CHECK(cm->at("data") == json::parse(R"({"config.json":"{}"})"));
}

TEST_CASE("a C plugin's validation error reaches admit and render with its path", "[plugin]") {
  std::vector<std::shared_ptr<trainer::Plugin>> plugins;
  plugins.push_back(load(NUMNODES_PLUGIN));
  auto with = framework_of(std::move(plugins));

  trainer::AdmissionOptions options;
  options.framework = with.get();
  auto admitted = trainer::admit(docs(runtime_yaml() + "---\n" + job_yaml(5)), {}, options);
  REQUIRE(admitted);
  REQUIRE(admitted->errors.size() == 1);
  CHECK(admitted->errors[0].to_string() ==
        "spec.trainer.numNodes: Invalid value: 5: must be at most 4");

  auto ok = trainer::admit(docs(runtime_yaml() + "---\n" + job_yaml(4)), {}, options);
  REQUIRE(ok);
  CHECK(ok->errors.empty());
  CHECK(std::find(ok->warnings.begin(), ok->warnings.end(), "MaxNodes checked") !=
        ok->warnings.end());

  auto rendered = render(runtime_yaml() + "---\n" + job_yaml(5), with.get());
  REQUIRE_FALSE(rendered);
  CHECK(rendered.error().code == ErrorCode::kInvalid);
  REQUIRE(rendered.error().fields.size() == 1);
  CHECK(rendered.error().fields[0].path == "spec.trainer.numNodes");
  CHECK(rendered.error().message == "spec.trainer.numNodes: Invalid value: 5: must be at most 4");
}

TEST_CASE("with_plugins refuses built-in and duplicate names", "[plugin]") {
  {
    std::vector<std::shared_ptr<trainer::Plugin>> plugins;
    plugins.push_back(load(TESTFW_PLUGIN));
    plugins.push_back(load(TESTFW_PLUGIN));
    auto fw = trainer::Framework::with_plugins({}, std::move(plugins));
    REQUIRE_FALSE(fw);
    CHECK(fw.error().code == ErrorCode::kInvalid);
    CHECK(fw.error().message == "plugin name \"TestFw\" is already registered");
  }
  {
    trainer_plugin_descriptor desc{};
    desc.abi_version = (1U << 16U);
    desc.name = "Torch";
    auto torch = trainer::plugin_from_descriptor(desc);
    REQUIRE(torch);
    std::vector<std::shared_ptr<trainer::Plugin>> plugins;
    plugins.push_back(std::move(*torch));
    auto fw = trainer::Framework::with_plugins({}, std::move(plugins));
    REQUIRE_FALSE(fw);
    CHECK(fw.error().message == "plugin name \"Torch\" is taken by a built-in plugin");
  }
  {
    std::vector<std::shared_ptr<trainer::Plugin>> plugins;
    plugins.push_back(nullptr);
    auto fw = trainer::Framework::with_plugins({}, std::move(plugins));
    REQUIRE_FALSE(fw);
    CHECK(fw.error().code == ErrorCode::kInvalid);
  }
}

namespace {

trainer_status no_op(void*, const trainer_plugin_request*, trainer_plugin_reply*) {
  return TRAINER_OK;
}

std::shared_ptr<trainer::Plugin> status_plugin(const char* name, bool with_status) {
  trainer_plugin_descriptor desc{};
  desc.abi_version = (1U << 16U);
  desc.name = name;
  desc.validate = no_op;
  if (with_status) desc.status = no_op;
  auto p = trainer::plugin_from_descriptor(desc);
  REQUIRE(p);
  return std::move(*p);
}

}  // namespace

TEST_CASE("with_plugins allows one TrainJobStatus plugin", "[plugin]") {
  std::vector<std::shared_ptr<trainer::Plugin>> one;
  one.push_back(status_plugin("StatusA", true));
  one.push_back(status_plugin("NoStatus", false));
  CHECK(trainer::Framework::with_plugins({}, std::move(one)));

  std::vector<std::shared_ptr<trainer::Plugin>> two;
  two.push_back(status_plugin("StatusA", true));
  two.push_back(status_plugin("StatusB", true));
  auto fw = trainer::Framework::with_plugins({}, std::move(two));
  REQUIRE_FALSE(fw);
  CHECK(fw.error().code == ErrorCode::kInvalid);
  CHECK(fw.error().message == "too many TrainJobStatus plugins are registered");
}

TEST_CASE("a C plugin takes part in exactly the phases of its callbacks", "[plugin]") {
  using trainer::Phase;
  auto p = status_plugin("OnlyValidate", false);
  CHECK(p->phases() == trainer::Phases{Phase::kCustomValidation});
  auto both = status_plugin("Both", true);
  CHECK(both->phases() == trainer::Phases{Phase::kCustomValidation, Phase::kTrainJobStatus});
  CHECK(both->name() == "Both");
  auto fw = load(TESTFW_PLUGIN);
  CHECK(fw->phases() == trainer::Phases{Phase::kEnforceMLPolicy, Phase::kComponentBuilder});
}

TEST_CASE("a framework keeps built-ins first, then added plugins in order", "[plugin]") {
  std::vector<std::shared_ptr<trainer::Plugin>> plugins;
  plugins.push_back(load(NUMNODES_PLUGIN));
  plugins.push_back(load(TESTFW_PLUGIN));
  auto fw = framework_of(std::move(plugins));
  const auto builtins = trainer::default_registry({}).size();
  REQUIRE(fw->plugins().size() == builtins + 2);
  CHECK(fw->plugins()[builtins]->name() == "MaxNodes");
  CHECK(fw->plugins()[builtins + 1]->name() == "TestFw");
}

TEST_CASE("load_plugin refuses a foreign ABI and a library without entry point", "[plugin]") {
  auto abi2 = trainer::load_plugin(ABI2_PLUGIN);
  REQUIRE_FALSE(abi2);
  CHECK(abi2.error().code == ErrorCode::kUnsupported);
  CHECK(abi2.error().message == std::string("plugin ") + ABI2_PLUGIN +
                                    " was built for plugin ABI 2.0; this libtrainer supports 1.0");

  auto noentry = trainer::load_plugin(NOENTRY_PLUGIN);
  REQUIRE_FALSE(noentry);
  CHECK(noentry.error().code == ErrorCode::kNotFound);
  CHECK(noentry.error().message.find(NOENTRY_PLUGIN) != std::string::npos);
  CHECK(noentry.error().message.find("trainer_plugin_entry") != std::string::npos);

  auto missing = trainer::load_plugin("/nonexistent/libnothing.so");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ErrorCode::kIo);
  CHECK(missing.error().message.find("/nonexistent/libnothing.so") != std::string::npos);
}

TEST_CASE("plugin_from_descriptor checks the name and the ABI version", "[plugin]") {
  trainer_plugin_descriptor desc{};
  desc.abi_version = (1U << 16U);
  for (const char* bad : {"", "has space", "slash/name",
                          "a-name-that-is-far-too-long-for-a-plugin-registry-entry-really-yes"}) {
    desc.name = bad;
    auto p = trainer::plugin_from_descriptor(desc);
    INFO(bad);
    REQUIRE_FALSE(p);
    CHECK(p.error().code == ErrorCode::kInvalidArgument);
  }
  desc.name = nullptr;
  CHECK(trainer::plugin_from_descriptor(desc).error().code == ErrorCode::kInvalidArgument);
  desc.name = "Paddle";
  desc.abi_version = (1U << 16U) | 1U;
  auto newer = trainer::plugin_from_descriptor(desc);
  REQUIRE_FALSE(newer);
  CHECK(newer.error().code == ErrorCode::kUnsupported);
  CHECK(newer.error().message ==
        "plugin \"Paddle\" was built for plugin ABI 1.1; this libtrainer supports 1.0");
}

TEST_CASE("eight threads rendering with a C plugin give identical output", "[plugin]") {
  std::vector<std::shared_ptr<trainer::Plugin>> plugins;
  plugins.push_back(load(TESTFW_PLUGIN));
  plugins.push_back(load(NUMNODES_PLUGIN));
  auto fw = framework_of(std::move(plugins));
  const auto input = docs(runtime_yaml() + "---\n" + job_yaml());
  trainer::RenderDocumentsOptions options;
  options.framework = fw.get();
  auto reference = trainer::render_documents(input, context(), options);
  REQUIRE(reference);
  std::vector<std::string> outputs(8);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < outputs.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        auto out = trainer::render_documents(input, context(), options);
        std::string text = out ? trainer::encode_yaml_stream(out->objects) : out.error().message;
        if (i == 0) {
          outputs[t] = std::move(text);
        } else if (text != outputs[t]) {
          outputs[t] = "render " + std::to_string(i) + " differs";
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  const std::string expected = trainer::encode_yaml_stream(reference->objects);
  for (const auto& o : outputs) CHECK(o == expected);
}

TEST_CASE("a C plugin frees its user data once, and a refused descriptor not at all", "[plugin]") {
  static int freed = 0;
  freed = 0;
  int data = 7;
  trainer_plugin_descriptor desc{};
  desc.abi_version = (1U << 16U);
  desc.name = "Owner";
  desc.user_data = &data;
  desc.user_data_free = [](void* user_data) {
    CHECK(*static_cast<int*>(user_data) == 7);
    ++freed;
  };
  desc.build = no_op;
  {
    auto p = trainer::plugin_from_descriptor(desc);
    REQUIRE(p);
    std::vector<std::shared_ptr<trainer::Plugin>> plugins;
    plugins.push_back(std::move(*p));
    auto fw = framework_of(std::move(plugins));
    CHECK(freed == 0);
  }
  CHECK(freed == 1);
  desc.name = "bad name";
  CHECK_FALSE(trainer::plugin_from_descriptor(desc));
  CHECK(freed == 1);
}

TEST_CASE("Info::runtime comes from the runtime snapshot when one exists", "[plugin]") {
  std::vector<std::shared_ptr<trainer::Plugin>> plugins;
  plugins.push_back(load(TESTFW_PLUGIN));
  auto with = framework_of(std::move(plugins));
  // The live runtime is no longer labelled testfw, but the snapshot the TrainJob started with is.
  json::object cm;
  cm["apiVersion"] = "v1";
  cm["kind"] = "ConfigMap";
  cm["metadata"] = json::object{
      {"name", "j-runtime-snapshot"},
      {"namespace", "default"},
      {"ownerReferences",
       json::array{json::object{{"kind", "TrainJob"}, {"uid", "uid-1"}, {"controller", true}}}}};
  cm["data"] = json::object{{"runtime", runtime_yaml("testfw")}};
  auto input = docs(runtime_yaml("torch") + "---\n" + job_yaml());
  input.emplace_back(std::move(cm));
  trainer::RenderDocumentsOptions options;
  options.framework = with.get();
  auto out = trainer::render_documents(input, context(), options);
  INFO((out ? std::string() : out.error().message));
  REQUIRE(out);
  const auto* js = find_kind(out->objects, "JobSet");
  REQUIRE(js != nullptr);
  CHECK(js->at("metadata").at("labels").at("testfw.example.com/managed") == "true");
}
