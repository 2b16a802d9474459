// SPDX-License-Identifier: Apache-2.0
//
// Replies a plugin should not send: each fails the operation with kInvalid, naming the plugin,
// the phase and the path in the reply, and never crashes. Also the callback failure statuses,
// the TrainJob patch of enforceMLPolicy, and the Info JSON view's round trip.
#include "plugin/plugin_internal.hpp"
#include "plugin_test_support.hpp"
#include "trainer/admission.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cstring>

namespace json = boost::json;
using namespace plugintest;
using trainer::ErrorCode;

namespace {

// user_data: the reply text; a leading "!" makes the callback fail with the number after it.
trainer_status reply_with(void* user_data, const trainer_plugin_request*,
                          trainer_plugin_reply* reply) {
  const char* text = static_cast<const char*>(user_data);
  if (text[0] == '!') {
    trainer::detail::plugin_reply_set_error(reply, "the plugin gave up");
    return static_cast<trainer_status>(std::atoi(text + 1));
  }
  return trainer::detail::plugin_reply_set(reply, text, std::strlen(text));
}

enum class At { kValidate, kEnforceMLPolicy, kEnforcePodSpec, kBuild };

std::shared_ptr<const trainer::Framework> garbage(At at, const char* reply) {
  trainer_plugin_descriptor desc{};
  desc.abi_version = (1U << 16U);
  desc.name = "Garbage";
  desc.user_data = const_cast<char*>(reply);  // NOLINT: read only
  switch (at) {
    case At::kValidate: desc.validate = reply_with; break;
    case At::kEnforceMLPolicy: desc.enforce_ml_policy = reply_with; break;
    case At::kEnforcePodSpec: desc.enforce_pod_spec = reply_with; break;
    case At::kBuild: desc.build = reply_with; break;
  }
  auto plugin = trainer::plugin_from_descriptor(desc);
  REQUIRE(plugin);
  std::vector<std::shared_ptr<trainer::Plugin>> plugins;
  plugins.push_back(std::move(*plugin));
  return framework_of(std::move(plugins));
}

trainer::Error render_error(At at, const char* reply) {
  auto fw = garbage(at, reply);
  auto out = render(runtime_yaml() + "---\n" + job_yaml(), fw.get());
  REQUIRE_FALSE(out);
  return out.error();
}

}  // namespace

TEST_CASE("malformed replies fail with kInvalid naming plugin, phase and path", "[plugin]") {
  struct Case {
    At at;
    const char* reply;
    const char* message;
  };
  const Case cases[] = {
      {At::kEnforceMLPolicy, "not JSON at all",
       "plugin \"Garbage\": enforceMLPolicy: reply: not JSON"},
      {At::kEnforceMLPolicy, R"([1,2])",
       "plugin \"Garbage\": enforceMLPolicy: reply: expected a JSON object"},
      {At::kEnforceMLPolicy, R"({"info":{"podSets":{"name":"node"}}})",
       "plugin \"Garbage\": enforceMLPolicy: reply: info.podSets: Invalid value: expected "
       "array, got object"},
      {At::kEnforceMLPolicy, R"({"info":{"podSets":[{"name":"node","count":"two"}]}})",
       "plugin \"Garbage\": enforceMLPolicy: reply: info.podSets[0].count: Invalid value: "
       "\"two\": expected int32"},
      {At::kEnforceMLPolicy, R"({"info":{"podSets":[{"count":2}]}})",
       "plugin \"Garbage\": enforceMLPolicy: reply: strategic merge: item {\"count\":2} of list "
       "\"podSets\" does not contain its merge key \"name\""},
      {At::kEnforceMLPolicy, R"({"info":{"podSet":[]}})",
       "plugin \"Garbage\": enforceMLPolicy: reply: unknown field \"info.podSet\""},
      {At::kEnforceMLPolicy, R"({"trainJob":{"spec":{"trainer":{"numNodes":"x"}}}})",
       "plugin \"Garbage\": enforceMLPolicy: reply: trainJob: spec.trainer.numNodes: Invalid "
       "value: \"x\": expected int32"},
      {At::kEnforcePodSpec, R"({"errors":[]})",
       "plugin \"Garbage\": enforcePodSpec: reply: errors: not allowed in phase enforcePodSpec"},
      {At::kEnforcePodSpec, R"({"trainJob":{}})",
       "plugin \"Garbage\": enforcePodSpec: reply: trainJob: not allowed in phase enforcePodSpec"},
      {At::kBuild, R"({"objects":[{"apiVersion":"v1","metadata":{"name":"x"}}]})",
       "plugin \"Garbage\": build: objects[0].kind: Required value"},
      {At::kBuild, R"({"objects":{}})",
       "plugin \"Garbage\": build: reply: objects: expected array"},
      {At::kBuild, R"({"objects":[{"apiVersion":"v1","kind":"ConfigMap"}]})",
       "plugin \"Garbage\": build: objects[0].metadata: Required value"},
      {At::kBuild, R"({"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":[]}]})",
       "plugin \"Garbage\": build: objects[0].metadata: Invalid value: expected object"},
      {At::kBuild, R"({"objects":[7]})",
       "plugin \"Garbage\": build: objects[0]: Invalid value: expected object"},
  };
  for (const auto& c : cases) {
    INFO(c.reply);
    const trainer::Error e = render_error(c.at, c.reply);
    INFO(e.message);
    CHECK(e.code == ErrorCode::kInvalid);
    CHECK(e.message.rfind(c.message, 0) == 0);
  }
}

TEST_CASE("a reply nested beyond the JSON depth limit is refused", "[plugin]") {
  static const std::string deep =
      R"({"info":{"labels":)" + std::string(300, '[') + std::string(300, ']') + "}}";
  const trainer::Error e = render_error(At::kEnforceMLPolicy, deep.c_str());
  INFO(e.message);
  CHECK(e.code == ErrorCode::kInvalid);
  CHECK(e.message.rfind("plugin \"Garbage\": enforceMLPolicy: reply: ", 0) == 0);
  CHECK(e.message.find("depth") != std::string::npos);
}

TEST_CASE("malformed validate replies are reported through admission", "[plugin]") {
  for (const char* reply : {R"({"errors":{}})", R"({"errors":[{"type":"Nope","field":"x"}]})",
                            R"({"warnings":[1]})", "{"}) {
    INFO(reply);
    auto fw = garbage(At::kValidate, reply);
    trainer::AdmissionOptions options;
    options.framework = fw.get();
    auto admitted = trainer::admit(docs(runtime_yaml() + "---\n" + job_yaml()), {}, options);
    REQUIRE(admitted);
    REQUIRE(admitted->errors.size() == 1);
    CHECK(admitted->errors[0].detail.rfind("plugin \"Garbage\": validate: reply: ", 0) == 0);
    CHECK(admitted->errors[0].path == "spec");
  }
}

TEST_CASE("a callback's failure status becomes the error's code", "[plugin]") {
  const auto not_found = render_error(At::kEnforcePodSpec, "!-5");
  CHECK(not_found.code == ErrorCode::kNotFound);
  CHECK(not_found.message == "plugin \"Garbage\": enforcePodSpec: the plugin gave up");
  const auto unknown = render_error(At::kBuild, "!12345");
  CHECK(unknown.code == ErrorCode::kUser);
  CHECK(unknown.message == "plugin \"Garbage\": build: the plugin gave up");
}

TEST_CASE("an enforceMLPolicy reply patches the TrainJob with a merge patch", "[plugin]") {
  auto fw = garbage(At::kEnforceMLPolicy,
                    R"({"trainJob":{"spec":{"trainer":{"command":["python","train.py"]}}}})");
  auto out = render(runtime_yaml() + "---\n" + job_yaml(), fw.get());
  INFO((out ? std::string() : out.error().message));
  REQUIRE(out);
  const auto* js = find_kind(out->objects, "JobSet");
  REQUIRE(js != nullptr);
  CHECK(js->at_pointer("/spec/replicatedJobs/0/template/spec/template/spec/containers/0/command") ==
        json::parse(R"(["python","train.py"])"));
}

TEST_CASE("the Info JSON view round-trips and a bad patch leaves Info unchanged", "[plugin]") {
  trainer::Info info;
  info.labels = {{"a", "1"}};
  info.annotations = {{"b", "2"}};
  info.runtime = {
      "TrainingRuntime", "rt", {{"trainer.kubeflow.org/framework", "testfw"}}, {{"c", "3"}}};
  trainer::MLPolicy ml;
  ml.num_nodes = 3;
  ml.torch.emplace();
  info.runtime_policy.ml_policy = ml;
  trainer::PodGroupPolicy pg;
  pg.coscheduling.emplace();
  pg.coscheduling->schedule_timeout_seconds = 60;
  info.runtime_policy.pod_group_policy = pg;
  info.scheduler.pod_labels = {{"d", "4"}};
  info.scheduler.pod_annotations = {{"e", "5"}};
  trainer::PodSet ps;
  ps.name = "node";
  ps.ancestor = "trainer";
  ps.count = 2;
  trainer::Container init;
  init.name = "init";
  init.image = "busybox";
  ps.init_containers.push_back(init);
  trainer::Container node;
  node.name = "node";
  node.image = "img";
  node.command = {"python", "x.py"};
  node.env = json::parse(R"([{"name":"A","value":"1"}])").as_array();
  node.ports = json::parse(R"([{"containerPort":1234}])").as_array();
  node.volume_mounts = json::parse(R"([{"name":"v","mountPath":"/v"}])").as_array();
  ps.containers.push_back(node);
  ps.volumes = json::parse(R"([{"name":"v","emptyDir":{}}])").as_array();
  ps.endpoints = {"j-node-0-0.j", "j-node-0-1.j"};
  ps.single_pod_requests["cpu"] = *trainer::Quantity::parse("1500m");
  ps.single_pod_requests["memory"] = *trainer::Quantity::parse("2Gi");
  info.template_spec.pod_sets.push_back(ps);
  info.template_spec.jobset_spec =
      json::parse(R"({"replicatedJobs":[{"name":"node"}]})").as_object();

  const json::object view = trainer::info_to_json(info);
  trainer::Info back;
  REQUIRE(trainer::apply_info_patch(back, view));
  CHECK(trainer::info_to_json(back) == view);
  CHECK(back.runtime.labels == info.runtime.labels);
  CHECK(back.template_spec.pod_sets.at(0).count == 2);
  CHECK(back.template_spec.pod_sets.at(0).ancestor == std::optional<std::string>("trainer"));
  CHECK(back.template_spec.pod_sets.at(0).single_pod_requests.at("cpu").to_string() == "1500m");
  CHECK(back.runtime_policy.ml_policy->num_nodes == 3);
  CHECK(back.runtime_policy.pod_group_policy->coscheduling->schedule_timeout_seconds == 60);

  // Env merges by name, ports by containerPort; null deletes.
  REQUIRE(trainer::apply_info_patch(back, json::parse(R"({"podSets":[{"name":"node",
      "containers":[{"name":"node","env":[{"name":"A","value":"2"},{"name":"B","value":"3"}],
      "ports":[{"containerPort":1234,"name":"p"}]}]}],"annotations":{"b":null}})")));
  const auto& c = back.template_spec.pod_sets.at(0).containers.at(0);
  CHECK(c.env == json::parse(R"([{"name":"A","value":"2"},{"name":"B","value":"3"}])"));
  CHECK(c.ports == json::parse(R"([{"containerPort":1234,"name":"p"}])"));
  CHECK(back.annotations.empty());

  const json::object before = trainer::info_to_json(back);
  auto bad = trainer::apply_info_patch(
      back, json::parse(R"({"labels":{"z":"9"},"podSets":[{"name":"node","count":"two"}]})"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == ErrorCode::kInvalid);
  CHECK(bad.error().message == "info.podSets[0].count: Invalid value: \"two\": expected int32");
  CHECK(trainer::info_to_json(back) == before);
}

TEST_CASE("run_status applies a status merge patch and refuses a status of the wrong shape",
          "[plugin]") {
  auto with_status = [](const char* reply) {
    trainer_plugin_descriptor desc{};
    desc.abi_version = (1U << 16U);
    desc.name = "Status";
    desc.user_data = const_cast<char*>(reply);  // NOLINT: read only
    desc.status = reply_with;
    auto plugin = trainer::plugin_from_descriptor(desc);
    REQUIRE(plugin);
    std::vector<std::shared_ptr<trainer::Plugin>> plugins;
    plugins.push_back(std::move(*plugin));
    return framework_of(std::move(plugins));
  };
  auto job = trainer::decode_train_job(docs(job_yaml()).at(0));
  REQUIRE(job);
  const json::object derived =
      json::parse(R"({"jobsStatus":[{"name":"node","active":1}]})").as_object();

  json::object status = derived;
  auto fw = with_status(R"({"status":{"conditions":[{"type":"Ready","status":"True",
      "reason":"R","message":"m","lastTransitionTime":"2026-01-01T00:00:00Z"}],"jobsStatus":null}})");
  REQUIRE(fw->run_status(job->object, status, trainer::RenderContext{}));
  CHECK(status == json::parse(R"({"conditions":[{"type":"Ready","status":"True","reason":"R",
      "message":"m","lastTransitionTime":"2026-01-01T00:00:00Z"}]})"));

  for (const char* bad :
       {R"({"status":{"conditions":"all good"}})", R"({"status":[]})", R"({"info":{}})", "!-9"}) {
    INFO(bad);
    status = derived;
    auto r = with_status(bad)->run_status(job->object, status, trainer::RenderContext{});
    REQUIRE_FALSE(r);
    CHECK(r.error().message.rfind("plugin \"Status\": status: ", 0) == 0);
    CHECK(status == derived);
  }
  // Without a status plugin, run_status changes nothing.
  status = derived;
  CHECK(framework_of({})->run_status(job->object, status, trainer::RenderContext{}));
  CHECK(status == derived);
}

namespace {

// enforcePodGroupPolicy: puts what the request's context said into JobSet labels.
trainer_status echo_context(void*, const trainer_plugin_request* request,
                            trainer_plugin_reply* reply) {
  const char* ns =
      trainer::detail::plugin_request_get_string(request, "/context/operatorNamespace");
  const char* uid = trainer::detail::plugin_request_get_string(request, "/context/trainJobUID");
  const char* phase = trainer::detail::plugin_request_get_string(request, "/phase");
  if (ns == nullptr || uid == nullptr || phase == nullptr) return TRAINER_E_INTERNAL;
  const std::string text = std::string(R"({"info":{"labels":{"seen-namespace":")") + ns +
                           R"(","seen-uid":")" + uid + R"(","seen-phase":")" + phase + R"("}}})";
  return trainer::detail::plugin_reply_set(reply, text.data(), text.size());
}

}  // namespace

TEST_CASE("every phase sees the render's context and the framework's configuration", "[plugin]") {
  trainer_plugin_descriptor desc{};
  desc.abi_version = (1U << 16U);
  desc.name = "Echo";
  desc.enforce_pod_group_policy = echo_context;
  auto plugin = trainer::plugin_from_descriptor(desc);
  REQUIRE(plugin);
  std::vector<std::shared_ptr<trainer::Plugin>> plugins;
  plugins.push_back(std::move(*plugin));
  trainer::OperatorConfig config;
  config.operator_namespace = "ops-system";
  const trainer::Framework fw = framework_of(std::move(plugins))->with_config(config);
  const trainer::RenderContext ctx = context();
  trainer::RenderDocumentsOptions options;
  options.framework = &fw;
  auto out = trainer::render_documents(docs(runtime_yaml() + "---\n" + job_yaml()), ctx, options);
  INFO((out ? std::string() : out.error().message));
  REQUIRE(out);
  const auto& labels = find_kind(out->objects, "JobSet")->at("metadata").at("labels");
  CHECK(labels.at("seen-namespace") == "ops-system");
  CHECK(labels.at("seen-uid") == "uid-1");
  CHECK(labels.at("seen-phase") == "enforcePodGroupPolicy");
}
