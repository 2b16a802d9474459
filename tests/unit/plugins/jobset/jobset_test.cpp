// SPDX-License-Identifier: Apache-2.0
#include "jobset/jobset_plugin.hpp"
#include "test_support.hpp"
#include "trainer/render.hpp"

namespace json = boost::json;

namespace {

constexpr const char* kRuntime = R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: rt, namespace: default}
spec:
  mlPolicy: {numNodes: 2}
  template:
    spec:
      network: {subdomain: sub}
      replicatedJobs:
        - name: dataset-initializer
          replicas: 1
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: dataset-initializer}
            spec:
              template:
                spec:
                  containers:
                    - name: dataset-initializer
                      image: init:v1
                      volumeMounts: [{name: initializer, mountPath: /workspace}]
        - name: node
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              template:
                spec:
                  initContainers: [{name: prep, image: prep:v1}]
                  containers:
                    - name: node
                      image: train:v1
                      env: [{name: A, value: runtime}]
        - name: other
          replicas: 2
          template:
            spec:
              parallelism: 2
              template:
                spec:
                  containers: [{name: other, image: other:v1}]
)";

struct Fixture {
  trainer::TrainingRuntime runtime = fwtest::training_runtime(kRuntime);
  std::unique_ptr<trainer::Plugin> plugin = trainer::make_jobset_plugin();
  trainer::RenderContext ctx;

  trainer::Info info(const trainer::TrainJob& job) const {
    auto i = trainer::new_runtime_info(job, runtime.spec);
    REQUIRE(i);
    return *i;
  }
  trainer::PreComponentBuilderPlugin& pre() {
    return dynamic_cast<trainer::PreComponentBuilderPlugin&>(*plugin);
  }
  trainer::ComponentBuilderPlugin& builder() {
    return dynamic_cast<trainer::ComponentBuilderPlugin&>(*plugin);
  }
  trainer::CustomValidationPlugin& validator() {
    return dynamic_cast<trainer::CustomValidationPlugin&>(*plugin);
  }
};

trainer::TrainJob job(const std::string& extra = {}) {
  return fwtest::train_job(R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: ns, uid: u-1}
spec:
  runtimeRef: {name: rt, kind: TrainingRuntime}
)" + extra);
}

const json::object& rjob(const json::value& jobset, std::size_t i) {
  return jobset.at("spec").at("replicatedJobs").at(i).get_object();
}

const json::object& pod_spec(const json::value& jobset, std::size_t i) {
  return rjob(jobset, i).at("template").at("spec").at("template").at("spec").get_object();
}

}  // namespace

TEST_CASE("JobSet plugin name and extension points") {
  Fixture f;
  CHECK(f.plugin->name() == "JobSet");
  CHECK(dynamic_cast<trainer::EnforceMLPolicyPlugin*>(f.plugin.get()) == nullptr);
}

TEST_CASE("PreBuildSync: endpoints per replica and pod, parallelism on every job") {
  Fixture f;
  const auto j = job();
  auto info = f.info(j);
  REQUIRE(f.pre().pre_build_sync(info, j, trainer::RenderContext{}));
  const auto& sets = info.template_spec.pod_sets;
  CHECK(sets[0].endpoints.to_vector() ==
        std::vector<std::string>{"tj-dataset-initializer-0-0.sub"});
  CHECK(sets[1].endpoints.to_vector() ==
        std::vector<std::string>{"tj-node-0-0.sub", "tj-node-0-1.sub"});
  CHECK(sets[2].endpoints.to_vector() ==
        std::vector<std::string>{"tj-other-0-0.sub", "tj-other-0-1.sub", "tj-other-1-0.sub",
                                 "tj-other-1-1.sub"});
  const auto& jobs = info.template_spec.jobset_spec.at("replicatedJobs").get_array();
  CHECK(jobs[0].at("template").at("spec").at("parallelism") == 1);
  CHECK(jobs[0].at("template").at("spec").at("completions") == 1);
  CHECK(jobs[1].at("template").at("spec").at("parallelism") == 2);
  CHECK(jobs[2].at("template").at("spec").at("completions") == 2);
}

TEST_CASE("Build: PodSet changes, initializer, trainer, scheduler metadata, suspend, owner") {
  Fixture f;
  auto j = job(R"(
  suspend: true
  initializer:
    dataset:
      storageUri: hf://d
      env: [{name: STORAGE_URI, value: override}, {name: TOKEN, value: t}]
      secretRef: {name: s}
  trainer:
    image: train:v2
    command: [go]
    args: [fast]
    env: [{name: A, value: job}, {name: B, value: job}]
)");
  auto info = f.info(j);
  auto& node = info.template_spec.pod_sets[1];
  node.containers[0].env.push_back(json::object{{"name", "PLUGIN"}, {"value", "1"}});
  node.containers[0].ports.push_back(json::object{{"containerPort", 29500}});
  node.volumes.push_back(json::object{{"name", "extra"}, {"emptyDir", json::object{}}});
  node.init_containers.push_back(
      trainer::Container{"installer", "inst:v1", {"install"}, {}, {}, {}});
  info.scheduler.pod_labels["pg"] = "tj";
  info.scheduler.pod_annotations["note"] = "x";
  info.labels["l"] = "v";
  REQUIRE(f.pre().pre_build_sync(info, j, trainer::RenderContext{}));
  auto built = f.builder().build(info, j, f.ctx);
  REQUIRE(built);
  REQUIRE(built->size() == 1);
  const auto& js = built->at(0);
  CHECK(js.at("apiVersion") == "jobset.x-k8s.io/v1alpha2");
  CHECK(js.at("metadata") ==
        fwtest::yaml(R"({name: tj, namespace: ns, labels: {l: v}, ownerReferences: [
          {apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, name: tj, uid: u-1,
           controller: true, blockOwnerDeletion: true}]})"));
  CHECK(js.at("spec").at("suspend") == true);
  CHECK(js.at("spec").at("network") == fwtest::yaml("{subdomain: sub}"));
  // Initializer: STORAGE_URI, then the job's env (which may override it), then envFrom.
  const auto& init = pod_spec(js, 0).at("containers").at(0);
  CHECK(init.at("env") == fwtest::yaml("[{name: STORAGE_URI, value: override}, "
                                       "{name: TOKEN, value: t}]"));
  CHECK(init.at("envFrom") == fwtest::yaml("[{secretRef: {name: s}}]"));
  CHECK(rjob(js, 0).at("replicas") == 1);
  // Trainer: image/command/args, env upserted last.
  const auto& trainer_pod = pod_spec(js, 1);
  const auto& c = trainer_pod.at("containers").at(0);
  CHECK(c.at("image") == "train:v2");
  CHECK(c.at("command") == fwtest::yaml("[go]"));
  CHECK(c.at("args") == fwtest::yaml("[fast]"));
  CHECK(c.at("env") == fwtest::yaml("[{name: A, value: job}, {name: PLUGIN, value: '1'}, "
                                    "{name: B, value: job}]"));
  CHECK(c.at("ports") == fwtest::yaml("[{containerPort: 29500}]"));
  CHECK(trainer_pod.at("volumes") == fwtest::yaml("[{name: extra, emptyDir: {}}]"));
  CHECK(trainer_pod.at("initContainers") ==
        fwtest::yaml("[{name: prep, image: prep:v1}, "
                     "{name: installer, command: [install], image: inst:v1}]"));
  CHECK(rjob(js, 1).at("replicas") == 1);
  // Scheduler metadata on every pod template.
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& meta = rjob(js, i).at("template").at("spec").at("template").at("metadata");
    CHECK(meta.at("labels").at("pg") == "tj");
    CHECK(meta.at("annotations").at("note") == "x");
  }
  // Jobs without an ancestor keep their replicas and containers.
  CHECK(rjob(js, 2).at("replicas") == 2);
  CHECK(pod_spec(js, 2).at("containers").at(0).at("image") == "other:v1");
}

TEST_CASE("Build skips a running JobSet and re-applies a suspended one") {
  Fixture f;
  json::value existing = fwtest::yaml("{spec: {suspend: false}}");
  f.ctx.lookup = [&](std::string_view api_version, std::string_view kind, std::string_view ns,
                     std::string_view name) -> std::optional<json::value> {
    if (api_version == "jobset.x-k8s.io/v1alpha2" && kind == "JobSet" && ns == "ns" &&
        name == "tj") {
      return existing;
    }
    return std::nullopt;
  };
  auto j = job();
  auto info = f.info(j);
  auto built = f.builder().build(info, j, f.ctx);
  REQUIRE(built);
  CHECK(built->empty());
  existing = fwtest::yaml("{spec: {suspend: true}}");
  built = f.builder().build(info, j, f.ctx);
  REQUIRE(built);
  CHECK(built->size() == 1);
  existing = fwtest::yaml("{spec: {suspend: false}}");
  j.spec.suspend = true;
  built = f.builder().build(info, j, f.ctx);
  REQUIRE(built);
  CHECK(built->size() == 1);
}

TEST_CASE("Build refuses more PodSets than replicated jobs") {
  Fixture f;
  auto j = job();
  auto info = f.info(j);
  info.template_spec.pod_sets.push_back(trainer::PodSet{});
  auto built = f.builder().build(info, j, f.ctx);
  REQUIRE_FALSE(built);
  CHECK(built.error().message ==
        "runtime template has 3 replicatedJobs but runtime info has 4 "
        "podSets");
}

TEST_CASE("Validate: initializer jobs, containers and volume mounts (J1-J6)") {
  Fixture f;
  auto j = job("  initializer: {dataset: {storageUri: 'hf://d'}, model: {storageUri: 'hf://m'}}\n");
  auto result = f.validator().validate(f.info(j), nullptr, j, f.ctx);
  REQUIRE(result.errors.size() == 1);
  CHECK(result.errors[0].path == "spec.runtimeRef");
  CHECK(result.errors[0].detail ==
        "must have model-initializer job when trainJob is configured with input modelConfig");

  // A job of that name without the container, then with it but without the mount.
  auto& jobs = f.runtime.spec.template_.spec.at("replicatedJobs").get_array();
  jobs.push_back(fwtest::yaml(R"({name: model-initializer, template: {spec: {template: {spec: {
      containers: [{name: other}]}}}}})"));
  result = f.validator().validate(f.info(j), nullptr, j, f.ctx);
  REQUIRE(result.errors.size() == 1);
  CHECK(result.errors[0].detail ==
        "must have container with name - model-initializer in the model-initializer job");
  jobs.back() = fwtest::yaml(R"({name: model-initializer, template: {spec: {template: {spec: {
      containers: [{name: model-initializer, volumeMounts: [{name: x, mountPath: /m}]}]}}}}})");
  result = f.validator().validate(f.info(j), nullptr, j, f.ctx);
  REQUIRE(result.errors.size() == 1);
  CHECK(result.errors[0].detail ==
        "must have volumeMount with name - initializer in container "
        "model-initializer of the model-initializer job");
}

TEST_CASE("Validate: runtime patch rules (J10-J14)") {
  Fixture f;
  auto j = job(R"(
  runtimePatches:
    - manager: not-prefixed
    - manager: example.com/ok
      trainingRuntimeSpec:
        template:
          spec:
            replicatedJobs:
              - name: ghost
              - name: node
                template:
                  spec:
                    template:
                      spec:
                        initContainers: [{name: node}, {name: missing-init}]
                        containers:
                          - name: missing
                          - name: node
                            env: [{name: X, value: "1"}]
                          - name: prep
                            env: [{name: Y, value: "1"}]
)");
  auto result = f.validator().validate(f.info(j), nullptr, j, f.ctx);
  std::vector<std::string> details;
  for (const auto& e : result.errors) details.push_back(e.path + ": " + e.detail);
  CHECK(details == std::vector<std::string>{
                       "spec.runtimePatches.manager: must be a domain-prefixed path (such as "
                       "\"acme.io/foo\")",
                       "spec.runtimePatches: must not have replicated job that doesn't exist in "
                       "the runtime job template",
                       "spec.runtimePatches: must not have initContainer that doesn't exist in "
                       "the runtime job node",
                       "spec.runtimePatches: must not have container that doesn't exist in the "
                       "runtime job node",
                       "spec.runtimePatches: must not have envs for the dataset-initializer, "
                       "model-initializer, node containers"});
  // The value of the J11-J14 errors is the whole runtimePatches list.
  CHECK(result.errors[1].value->as_array().size() == 2);
}

TEST_CASE("Validate: runtime patches change only while suspended and inactive (J7, J9)") {
  Fixture f;
  const auto old_job = job();
  auto new_job = job("  runtimePatches: [{manager: example.com/m}]\n");
  auto result = f.validator().validate(f.info(new_job), &old_job, new_job, f.ctx);
  REQUIRE(result.errors.size() == 1);
  CHECK(result.errors[0].type == trainer::FieldErrorType::kForbidden);
  CHECK(result.errors[0].detail ==
        "RuntimePatches can only be modified when the TrainJob is "
        "suspended before or after the update");

  new_job.spec.suspend = true;
  CHECK(f.validator().validate(f.info(new_job), &old_job, new_job, f.ctx).ok());

  f.ctx.lookup = [](std::string_view, std::string_view kind, std::string_view,
                    std::string_view) -> std::optional<json::value> {
    if (kind != "JobSet") return std::nullopt;
    return fwtest::yaml(
        "{status: {replicatedJobsStatus: [{name: node, active: 2}, "
        "{name: other, active: 0}]}}");
  };
  result = f.validator().validate(f.info(new_job), &old_job, new_job, f.ctx);
  REQUIRE(result.errors.size() == 1);
  CHECK(result.errors[0].detail ==
        "RuntimePatches cannot be modified when the JobSet's ReplicatedJob node is still active");
  // Unchanged patches are never checked.
  CHECK(f.validator().validate(f.info(old_job), &old_job, old_job, f.ctx).ok());
}

TEST_CASE("PreBuildSync: endpoints of a very large PodSet are named on demand") {
  // The endpoints are a pattern: a PodSet of kMaxPodsPerTrainJob pods (or, for a render that
  // skipped admission, of INT32_MAX pods) costs no string per pod until one is asked for.
  Fixture f;
  for (const std::int32_t nodes : {std::int32_t{100000}, std::int32_t{2147483647}}) {
    const auto j = job("  trainer: {numNodes: " + std::to_string(nodes) + "}\n");
    auto info = f.info(j);
    info.template_spec.pod_sets[1].count = nodes;
    REQUIRE(f.pre().pre_build_sync(info, j, trainer::RenderContext{}));
    const auto& node = info.template_spec.pod_sets[1].endpoints;
    CHECK(node.size() == static_cast<std::size_t>(nodes));
    CHECK(node.front() == "tj-node-0-0.sub");
    CHECK(node[static_cast<std::size_t>(nodes) - 1] ==
          "tj-node-0-" + std::to_string(nodes - 1) + ".sub");
    // Iteration yields the same names, in order.
    auto it = node.begin();
    CHECK(*it == "tj-node-0-0.sub");
    CHECK(*++it == "tj-node-0-1.sub");
  }
}

TEST_CASE("PodEndpoints: replica-major pattern, explicit lists, empty") {
  const auto e = trainer::PodEndpoints::jobset("j", "w", "s", 2, 3);
  CHECK(e.size() == 6);
  CHECK(e.to_vector() == std::vector<std::string>{"j-w-0-0.s", "j-w-0-1.s", "j-w-0-2.s",
                                                  "j-w-1-0.s", "j-w-1-1.s", "j-w-1-2.s"});
  const trainer::PodEndpoints list = {"a", "b"};
  CHECK(list.size() == 2);
  CHECK(list[1] == "b");
  CHECK(std::vector<std::string>(list.begin(), list.end()) == std::vector<std::string>{"a", "b"});
  CHECK(trainer::PodEndpoints().empty());
  CHECK(trainer::PodEndpoints::jobset("j", "w", "s", 0, 3).empty());
  CHECK(trainer::PodEndpoints::jobset("j", "w", "s", -1, 3).empty());
}
