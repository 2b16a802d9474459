// SPDX-License-Identifier: Apache-2.0
#include "trainer/render.hpp"
#include "test_support.hpp"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace json = boost::json;

namespace {

std::string runtime_yaml(const std::string& name, const std::string& image) {
  return R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: )" +
         name + R"(, namespace: default}
spec:
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              template:
                spec:
                  containers: [{name: node, image: )" +
         image + R"(}]
)";
}

std::string job_yaml(const std::string& name, const std::string& runtime,
                     const std::string& extra = {}) {
  return R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: )" +
         name + R"(, namespace: default}
spec:
  runtimeRef: {name: )" +
         runtime + R"(, kind: TrainingRuntime}
)" + extra;
}

std::vector<json::value> docs(const std::string& text) {
  return fwtest::yaml_docs(text);
}

trainer::RenderContext context(std::string uid = "uid-1") {
  trainer::RenderContext ctx;
  ctx.train_job_uid = std::move(uid);
  return ctx;
}

const json::value* find_kind(const std::vector<json::value>& objects, std::string_view kind) {
  for (const auto& o : objects) {
    if (o.at("kind").as_string() == kind) return &o;
  }
  return nullptr;
}

json::value snapshot_config_map(const std::string& owner_uid, const std::string& runtime_text) {
  json::object cm;
  cm["apiVersion"] = "v1";
  cm["kind"] = "ConfigMap";
  cm["metadata"] = json::object{
      {"name", "j-runtime-snapshot"},
      {"namespace", "default"},
      {"ownerReferences",
       json::array{json::object{{"kind", "TrainJob"}, {"uid", owner_uid}, {"controller", true}}}}};
  cm["data"] = json::object{{"runtime", runtime_text}};
  return cm;
}

}  // namespace

TEST_CASE("render_documents: snapshot ConfigMap first, then the JobSet") {
  auto out = trainer::render_documents(
      docs(runtime_yaml("rt", "img:v1") + "---\n" + job_yaml("j", "rt")), context());
  REQUIRE(out);
  REQUIRE(out->objects.size() == 2);
  const auto& cm = out->objects[0];
  CHECK(cm.at("kind") == "ConfigMap");
  CHECK(cm.at("metadata").at("name") == "j-runtime-snapshot");
  const auto owner = cm.at("metadata").at("ownerReferences").at(0);
  CHECK(owner == fwtest::yaml("{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, "
                              "name: j, uid: uid-1, controller: true, blockOwnerDeletion: true}"));
  // The snapshot holds the defaulted runtime with apiVersion and kind.
  auto runtime = trainer::parse_documents(cm.at("data").at("runtime").as_string());
  REQUIRE(runtime);
  CHECK(runtime->at(0).at("kind") == "TrainingRuntime");
  CHECK(runtime->at(0)
            .at("spec")
            .at("template")
            .at("spec")
            .at("replicatedJobs")
            .at(0)
            .at("replicas") == 1);
  CHECK(find_kind(out->objects, "JobSet") == &out->objects[1]);
  CHECK(out->skipped_reason.empty());
}

TEST_CASE("render_documents renders alike whether admission gives the runtime's template up") {
  // A runtime before its TrainJob is read by nothing admitted after the TrainJob: its JobSet
  // template moves into the runtime info once its snapshot is written. After the TrainJob, the
  // runtime is still to be admitted, so the template is copied.
  const std::string job = job_yaml("j", "rt", R"(
  trainer:
    resourcesPerNode: {limits: {cpu: "2"}}
  runtimePatches:
    - manager: example.com/one
      trainingRuntimeSpec:
        template:
          metadata: {labels: {patched: "yes"}}
          spec:
            replicatedJobs:
              - name: node
                template:
                  spec:
                    template:
                      spec:
                        nodeSelector: {k: v}
)");
  const std::string runtime = runtime_yaml("rt", "img:v1") + R"(
  mlPolicy: {numNodes: 2}
)";
  auto taken = trainer::render_documents(docs(runtime + "---\n" + job), context());
  auto copied = trainer::render_documents(docs(job + "---\n" + runtime), context());
  REQUIRE(taken);
  REQUIRE(copied);
  REQUIRE(taken->objects.size() == 2);
  CHECK(taken->objects == copied->objects);
  CHECK(taken->warnings == copied->warnings);
  // The snapshot holds the runtime's template as given, without the patch or the resources.
  auto snapshot = trainer::parse_documents(taken->objects[0].at("data").at("runtime").as_string());
  REQUIRE(snapshot);
  const auto pod_spec = [](const json::value& jobset_spec) {
    return jobset_spec.at("replicatedJobs")
        .at(0)
        .at("template")
        .at("spec")
        .at("template")
        .at("spec");
  };
  const auto& kept = pod_spec(snapshot->at(0).at("spec").at("template").at("spec"));
  CHECK(kept.as_object().if_contains("nodeSelector") == nullptr);
  CHECK(kept.at("containers").at(0).as_object().if_contains("resources") == nullptr);
  const auto& built = pod_spec(taken->objects[1].at("spec"));
  CHECK(built.at("nodeSelector") == fwtest::yaml("{k: v}"));
  CHECK(built.at("containers").at(0).at("resources") == fwtest::yaml("{limits: {cpu: '2'}}"));
}

TEST_CASE("render uses an existing snapshot owned by the TrainJob instead of the live runtime") {
  const auto rt = fwtest::training_runtime(runtime_yaml("rt", "live:v2"));
  const auto job = fwtest::train_job(job_yaml("j", "rt"));
  auto ctx = context();
  const json::value cm = snapshot_config_map("uid-1", runtime_yaml("rt", "snapshot:v1"));
  ctx.lookup = [&](std::string_view, std::string_view kind, std::string_view,
                   std::string_view name) -> std::optional<json::value> {
    if (kind == "ConfigMap" && name == "j-runtime-snapshot") return cm;
    return std::nullopt;
  };
  SECTION("used, and not applied again") {
    auto out = trainer::render(job, {&rt, nullptr}, ctx);
    REQUIRE(out);
    REQUIRE(out->objects.size() == 1);
    CHECK(out->objects[0]
              .at("spec")
              .at("replicatedJobs")
              .at(0)
              .at("template")
              .at("spec")
              .at("template")
              .at("spec")
              .at("containers")
              .at(0)
              .at("image") == "snapshot:v1");
  }
  SECTION("no live runtime needed") {
    auto out = trainer::render(job, {}, ctx);
    REQUIRE(out);
    CHECK(out->objects.size() == 1);
  }
  SECTION("owned by another object") {
    ctx.train_job_uid = "other";
    auto out = trainer::render(job, {&rt, nullptr}, ctx);
    REQUIRE_FALSE(out);
    CHECK(out.error().message ==
          "unable to get runtime snapshot: invalid runtime snapshot: a snapshot configmap exists "
          "but is owned by another object");
  }
}

TEST_CASE("render refuses snapshots without the data key or for another runtime") {
  const auto job = fwtest::train_job(job_yaml("j", "rt"));
  json::value cm;
  auto ctx = context();
  ctx.lookup = [&](std::string_view, std::string_view, std::string_view,
                   std::string_view) -> std::optional<json::value> { return cm; };
  SECTION("missing key") {
    cm = snapshot_config_map("uid-1", "");
    cm.at("data").get_object().clear();
    auto out = trainer::render(job, {}, ctx);
    REQUIRE_FALSE(out);
    CHECK(out.error().message ==
          "unable to get runtime snapshot: invalid runtime snapshot: "
          "snapshot ConfigMap missing \"runtime\" data key");
  }
  SECTION("wrong runtime") {
    cm = snapshot_config_map("uid-1", runtime_yaml("other", "x:v1"));
    auto out = trainer::render(job, {}, ctx);
    REQUIRE_FALSE(out);
    CHECK(out.error().message ==
          "unable to get runtime snapshot: invalid runtime snapshot: the snapshot refers to the "
          "wrong runtime: expecting a runtime with name, api group and kind of \"rt\", "
          "\"trainer.kubeflow.org\", \"TrainingRuntime\" but found runtime with name, api group "
          "and kind of \"other\", \"trainer.kubeflow.org\", \"TrainingRuntime\"");
  }
  SECTION("not YAML") {
    cm = snapshot_config_map("uid-1", "a: [");
    auto out = trainer::render(job, {}, ctx);
    REQUIRE_FALSE(out);
    CHECK(out.error().message.find("unable to unmarshal the snapshot") != std::string::npos);
  }
}

TEST_CASE("render without the runtime and without a snapshot fails as upstream") {
  const auto job = fwtest::train_job(job_yaml("j", "rt"));
  auto out = trainer::render(job, {}, context());
  REQUIRE_FALSE(out);
  CHECK(out.error().code == trainer::ErrorCode::kNotFound);
  CHECK(out.error().message ==
        "TrainingRuntime specified in TrainJob is not found: "
        "trainingruntimes.trainer.kubeflow.org \"rt\" not found");
}

TEST_CASE("render uses the given runtime only when the TrainJob references it") {
  auto rt = fwtest::training_runtime(runtime_yaml("rt", "img:v1"));
  const auto job = fwtest::train_job(job_yaml("j", "rt"));
  REQUIRE(trainer::render(job, {&rt, nullptr}, context()));
  // A TrainingRuntime of that name in another namespace is not the one the controller GETs.
  rt.metadata.namespace_ = "elsewhere";
  auto out = trainer::render(job, {&rt, nullptr}, context());
  REQUIRE_FALSE(out);
  CHECK(out.error().code == trainer::ErrorCode::kNotFound);
  rt.metadata.namespace_ = "default";
  rt.metadata.name = "other";
  out = trainer::render(job, {&rt, nullptr}, context());
  REQUIRE_FALSE(out);
  CHECK(out.error().code == trainer::ErrorCode::kNotFound);
}

TEST_CASE("render skips TrainJobs managed elsewhere or finished") {
  const auto rt = fwtest::training_runtime(runtime_yaml("rt", "img:v1"));
  auto job = fwtest::train_job(job_yaml("j", "rt", "  managedBy: kueue.x-k8s.io/multikueue\n"));
  auto out = trainer::render(job, {&rt, nullptr}, context());
  REQUIRE(out);
  CHECK(out->objects.empty());
  CHECK(out->skipped_reason.find("kueue.x-k8s.io/multikueue") != std::string::npos);

  job = fwtest::train_job(job_yaml("j", "rt"));
  job.status.emplace();
  job.status->conditions.push_back({"Complete", "True", std::nullopt, "", "done", "done"});
  out = trainer::render(job, {&rt, nullptr}, context());
  REQUIRE(out);
  CHECK(out->objects.empty());
  CHECK(out->skipped_reason.find("has finished") != std::string::npos);
}

TEST_CASE("render_documents input errors") {
  SECTION("no TrainJob") {
    auto out = trainer::render_documents(docs(runtime_yaml("rt", "i:v1")), context());
    REQUIRE_FALSE(out);
    CHECK(out.error().message == "render needs exactly one TrainJob among the inputs, found 0");
  }
  SECTION("two TrainJobs") {
    auto out = trainer::render_documents(docs(runtime_yaml("rt", "i:v1") + "---\n" +
                                              job_yaml("a", "rt") + "---\n" + job_yaml("b", "rt")),
                                         context());
    REQUIRE_FALSE(out);
    CHECK(out.error().message == "render needs exactly one TrainJob among the inputs, found 2");
  }
  SECTION("runtime missing") {
    auto out = trainer::render_documents(docs(job_yaml("a", "rt")), context());
    REQUIRE_FALSE(out);
    CHECK(out.error().code == trainer::ErrorCode::kNotFound);
    REQUIRE(out.error().fields.size() == 1);
    CHECK(out.error().fields[0].path == "spec.runtimeRef");
  }
  SECTION("runtime in another namespace") {
    std::string rt = runtime_yaml("rt", "i:v1");
    rt.replace(rt.find("namespace: default"), 18, "namespace: elsewhere");
    auto out = trainer::render_documents(docs(rt + "---\n" + job_yaml("a", "rt")), context());
    REQUIRE_FALSE(out);
    CHECK(out.error().message.find("is in namespace \"elsewhere\"") != std::string::npos);
  }
  SECTION("namespace option") {
    std::string text = runtime_yaml("rt", "i:v1") + "---\n" + job_yaml("a", "rt");
    trainer::RenderDocumentsOptions options;
    options.namespace_ = "team";
    auto out = trainer::render_documents(docs(text), context(), options);
    REQUIRE_FALSE(out);
    CHECK(out.error().message.find("--namespace=default") != std::string::npos);
    // Without explicit namespaces the inputs land in the option's namespace.
    while (text.find(", namespace: default") != std::string::npos) {
      text.erase(text.find(", namespace: default"), 20);
    }
    out = trainer::render_documents(docs(text), context(), options);
    REQUIRE(out);
    CHECK(out->objects.at(1).at("metadata").at("namespace") == "team");
  }
  SECTION("admission errors carry every field error, warnings reach the callback") {
    std::vector<std::string> warnings;
    trainer::RenderDocumentsOptions options;
    options.on_warning = [&](std::string_view w) { warnings.emplace_back(w); };
    auto out = trainer::render_documents(
        docs(runtime_yaml("rt", "i:v1") + "---\n" +
             job_yaml("a", "rt",
                      "  runtimePatches: [{manager: bad}]\n  trainer:\n    unknown: 1\n")),
        context(), options);
    REQUIRE_FALSE(out);
    CHECK(out.error().code == trainer::ErrorCode::kInvalid);
    REQUIRE_FALSE(out.error().fields.empty());
    CHECK(out.error().fields[0].path == "spec.runtimePatches.manager");
    CHECK_FALSE(warnings.empty());
  }
}

TEST_CASE("admit runs the plugins' validation") {
  auto adm =
      trainer::admit(docs(runtime_yaml("rt", "i:v1") + "---\n" +
                          job_yaml("a", "rt", "  initializer: {model: {storageUri: 'hf://m'}}\n")),
                     context());
  REQUIRE(adm);
  REQUIRE(adm->errors.size() == 1);
  CHECK(adm->errors[0].to_string().find("must have model-initializer job") != std::string::npos);
}

TEST_CASE("rendering from 8 threads at once gives each input its own output") {
  constexpr int kThreads = 8;
  std::vector<std::string> results(kThreads);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  const trainer::Framework shared =
      *trainer::Framework::from_registry(trainer::default_registry({}));
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string n = std::to_string(t);
      trainer::RenderDocumentsOptions options;
      if (t % 2 == 0) options.framework = &shared;  // half share one Framework
      for (int round = 0; round < 20; ++round) {
        auto parsed = trainer::parse_documents(runtime_yaml("rt" + n, "img:" + n) + "---\n" +
                                               job_yaml("job" + n, "rt" + n));
        if (!parsed) {
          ++failures;
          return;
        }
        auto out = trainer::render_documents(*parsed, context("uid-" + n), options);
        if (!out || out->objects.size() != 2) {
          ++failures;
          return;
        }
        results[static_cast<std::size_t>(t)] = trainer::encode_yaml_stream(out->objects);
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures == 0);
  for (int t = 0; t < kThreads; ++t) {
    const std::string n = std::to_string(t);
    const auto& text = results[static_cast<std::size_t>(t)];
    CHECK(text.find("name: job" + n + "\n") != std::string::npos);
    CHECK(text.find("image: img:" + n) != std::string::npos);
    CHECK(text.find("uid: uid-" + n) != std::string::npos);
  }
}
