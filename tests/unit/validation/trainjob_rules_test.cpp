// SPDX-License-Identifier: Apache-2.0
#include "test_support.hpp"

#include <catch2/catch.hpp>

using trainer::test::env;
using trainer::test::json_object;
using trainer::test::rendered;
using trainer::test::valid_job;
using Strings = std::vector<std::string>;

TEST_CASE("a defaulted minimal TrainJob is valid", "[validation][trainjob]") {
  const auto r = trainer::validate_train_job(valid_job());
  CHECK(r.ok());
  CHECK(r.warnings.empty());
}

namespace {

// The API server's object-meta check of a name that is not a DNS subdomain, before the schema.
std::string not_a_subdomain(const std::string& name) {
  return "metadata.name: Invalid value: \"" + name +
         "\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
         "'-' or '.', and must start and end with an alphanumeric character (e.g. "
         "'example.com', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
}

}  // namespace

TEST_CASE("metadata.name object rules render at the nil path", "[validation][trainjob]") {
  auto job = valid_job();
  job.metadata.name = "1bad";
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"<nil>: Invalid value: metadata.name must match RFC 1035 DNS label format"});

  job.metadata.name = std::string(64, 'a');
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"<nil>: Invalid value: metadata.name must be no more than 63 characters"});

  // Not a DNS subdomain either: the API server's metadata.name error comes first.
  job.metadata.name = "Bad-" + std::string(70, 'a');
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{not_a_subdomain(*job.metadata.name),
                "<nil>: Invalid value: metadata.name must match RFC 1035 DNS label format",
                "<nil>: Invalid value: metadata.name must be no more than 63 characters"});

  for (const char* ok : {"a", "a-b-1", "abc"}) {
    job.metadata.name = ok;
    CHECK(trainer::validate_train_job(job).ok());
  }
  for (const char* bad : {"a-", "-a", "a_b", "A"}) {
    job.metadata.name = bad;
    CHECK(rendered(trainer::validate_train_job(job)) ==
          Strings{not_a_subdomain(bad),
                  "<nil>: Invalid value: metadata.name must match RFC 1035 DNS label format"});
  }
  // A DNS subdomain that is no RFC 1035 label: the CRD's rule only, at the nil path, as the API
  // server reports it.
  job.metadata.name = "a.b";
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"<nil>: Invalid value: metadata.name must match RFC 1035 DNS label format"});
  job.metadata.name = std::string(63, 'a');
  CHECK(trainer::validate_train_job(job).ok());
  // generateName: the name does not exist yet when these rules run.
  job.metadata.name.reset();
  CHECK(trainer::validate_train_job(job).ok());
}

TEST_CASE("runtimeRef limits", "[validation][trainjob]") {
  auto job = valid_job();
  job.spec.runtime_ref.name.clear();
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"spec.runtimeRef.name: Required value"});
  job.spec.runtime_ref.name = std::string(254, 'r');
  job.spec.runtime_ref.api_group = std::string(254, 'g');
  job.spec.runtime_ref.kind = std::string(254, 'k');
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"spec.runtimeRef.name: Too long: may not be more than 253 bytes",
                "spec.runtimeRef.apiGroup: Too long: may not be more than 253 bytes",
                "spec.runtimeRef.kind: Too long: may not be more than 253 bytes"});
  job.spec.runtime_ref.name = std::string(253, 'r');
  job.spec.runtime_ref.api_group = std::string(253, 'g');
  job.spec.runtime_ref.kind = std::string(253, 'k');
  CHECK(trainer::validate_train_job(job).ok());
}

TEST_CASE("maxLength counts characters, not bytes", "[validation][trainjob]") {
  auto job = valid_job();
  job.spec.trainer = trainer::Trainer{};
  std::string image;
  for (int i = 0; i < 500; ++i) image += "\xc3\xa9";  // 500 x U+00E9, 1000 bytes
  job.spec.trainer->image = image;
  CHECK(trainer::validate_train_job(job).ok());
  job.spec.trainer->image = image + "x";
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"spec.trainer.image: Too long: may not be more than 500 bytes"});
}

TEST_CASE("managedBy enum-by-CEL and maxLength", "[validation][trainjob]") {
  auto job = valid_job();
  job.spec.managed_by = trainer::kManagedByMultiKueue;
  CHECK(trainer::validate_train_job(job).ok());
  job.spec.managed_by = "example.com/other";
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"spec.managedBy: Invalid value: \"example.com/other\": ManagedBy must be "
                "trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set"});
  job.spec.managed_by = std::string(254, 'm');
  const auto r = rendered(trainer::validate_train_job(job));
  REQUIRE(r.size() == 2);
  CHECK(r[0] == "spec.managedBy: Too long: may not be more than 253 bytes");
  CHECK(r[1].rfind("spec.managedBy: Invalid value: \"mmm", 0) == 0);
}

TEST_CASE("trainer numeric rules", "[validation][trainjob]") {
  auto job = valid_job();
  job.spec.trainer = trainer::Trainer{};
  job.spec.trainer->num_nodes = 0;
  job.spec.trainer->num_proc_per_node = 1;
  CHECK(trainer::validate_train_job(job).ok());
  job.spec.trainer->num_nodes = -1;
  job.spec.trainer->num_proc_per_node = 0;
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"spec.trainer.numNodes: Invalid value: -1: spec.trainer.numNodes in body should "
                "be greater than or equal to 0",
                "spec.trainer.numProcPerNode: Invalid value: 0: numProcPerNode must be greater "
                "than or equal to 1"});
}

TEST_CASE("trainer command, args and env limits", "[validation][trainjob]") {
  auto job = valid_job();
  job.spec.trainer = trainer::Trainer{};
  job.spec.trainer->command = std::vector<std::string>(128, "x");
  job.spec.trainer->args = std::vector<std::string>{"ok", std::string(1048576, 'a')};
  CHECK(trainer::validate_train_job(job).ok());

  job.spec.trainer->command = std::vector<std::string>(129, "x");
  job.spec.trainer->args = std::vector<std::string>{"ok", std::string(1048577, 'a')};
  for (int i = 0; i < 129; ++i) {
    job.spec.trainer->env.push_back(env(("E" + std::to_string(i)).c_str(), "v"));
  }
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"spec.trainer.command: Too many: 129: must have at most 128 items",
                "spec.trainer.args[1]: Too long: may not be more than 1048576 bytes",
                "spec.trainer.env: Too many: 129: must have at most 128 items"});
}

TEST_CASE("env is a list map keyed by name", "[validation][trainjob]") {
  auto job = valid_job();
  job.spec.trainer = trainer::Trainer{};
  job.spec.trainer->env = {env("A", "1"), env("B", "2"), env("A", "3"), env("A", "4"),
                           json_object(R"({"value": "no name"})")};
  // Only the second occurrence of a key is reported, as the API server's listtype validation.
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"spec.trainer.env[2]: Duplicate value: {\"name\":\"A\"}",
                "spec.trainer.env[4].name: Required value"});
}

TEST_CASE("initializer storageUri and env", "[validation][trainjob]") {
  auto job = valid_job();
  job.spec.initializer = trainer::Initializer{};
  job.spec.initializer->dataset = trainer::DatasetInitializer{};
  job.spec.initializer->model = trainer::ModelInitializer{};
  for (const char* ok : {"", "hf://meta/llama", "s3+x.y-z://b", "S3://bucket/key"}) {
    job.spec.initializer->dataset->storage_uri = ok;
    CHECK(trainer::validate_train_job(job).ok());
  }
  job.spec.initializer->dataset->storage_uri = "not a uri";
  job.spec.initializer->model->storage_uri = "hf://" + std::string(2044, 'm');
  job.spec.initializer->model->env = {env("X", "1"), env("X", "2")};
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"spec.initializer.dataset.storageUri: Invalid value: \"not a uri\": storageUri "
                "may be empty, or it must be a valid URI (scheme://...)",
                "spec.initializer.model.storageUri: Too long: may not be more than 2048 bytes",
                "spec.initializer.model.env[1]: Duplicate value: {\"name\":\"X\"}"});
  for (const char* bad : {"1s://x", "hf://", "hf:/x", "://x", "h f://x", "hf://a\nb"}) {
    job.spec.initializer->model->storage_uri.reset();
    job.spec.initializer->model->env.clear();
    job.spec.initializer->dataset->storage_uri = bad;
    CHECK(trainer::validate_train_job(job).errors.size() == 1);
  }
}

TEST_CASE("activeDeadlineSeconds minimum applies when set", "[validation][trainjob]") {
  auto job = valid_job();
  job.spec.active_deadline_seconds = 1;
  CHECK(trainer::validate_train_job(job).ok());
  job.spec.active_deadline_seconds = 0;
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"spec.activeDeadlineSeconds: Invalid value: 0: spec.activeDeadlineSeconds in "
                "body should be greater than or equal to 1"});
}

namespace {

trainer::RuntimePatch patch_with_pod(const char* manager, trainer::PodSpecPatch pod,
                                     const char* job_name = "node") {
  trainer::RuntimePatch p;
  p.manager = manager;
  trainer::ReplicatedJobPatch rj;
  rj.name = job_name;
  rj.template_.emplace().spec.emplace().template_.emplace().spec = std::move(pod);
  p.training_runtime_spec.emplace().template_.emplace().spec.emplace().replicated_jobs.push_back(
      std::move(rj));
  return p;
}

}  // namespace

TEST_CASE("runtimePatches list rules", "[validation][trainjob]") {
  auto job = valid_job();
  for (int i = 0; i < 17; ++i) {
    trainer::RuntimePatch p;
    p.manager = "example.com/m" + std::to_string(i);
    job.spec.runtime_patches.push_back(p);
  }
  job.spec.runtime_patches[3].manager = "example.com/m1";
  job.spec.runtime_patches[4].manager.clear();
  job.spec.runtime_patches[5].manager = std::string(254, 'x');
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"spec.runtimePatches: Too many: 17: must have at most 16 items",
                "spec.runtimePatches[3]: Duplicate value: {\"manager\":\"example.com/m1\"}",
                "spec.runtimePatches[4].manager: Required value",
                "spec.runtimePatches[5].manager: Too long: may not be more than 253 bytes"});
}

TEST_CASE("runtime patch pod spec limits", "[validation][trainjob]") {
  auto job = valid_job();
  trainer::PodSpecPatch pod;
  pod.service_account_name = "sa";
  pod.termination_grace_period_seconds = 0;
  trainer::ContainerPatch c;
  c.name = "node";
  pod.containers.push_back(c);
  job.spec.runtime_patches.push_back(patch_with_pod("kueue.x-k8s.io/manager", pod));
  CHECK(trainer::validate_train_job(job).ok());

  pod.service_account_name = std::string(254, 's');
  pod.termination_grace_period_seconds = -1;
  for (int i = 0; i < 129; ++i) {
    pod.volumes.push_back(json_object(("{\"name\":\"v" + std::to_string(i) + "\"}").c_str()));
    pod.tolerations.push_back(json_object(R"({"operator":"Exists"})"));
  }
  for (int i = 0; i < 64; ++i) {
    trainer::ContainerPatch extra;
    extra.name = "c" + std::to_string(i);
    pod.init_containers.push_back(extra);
    pod.containers.push_back(extra);
  }
  pod.init_containers.push_back(pod.init_containers.front());
  for (int i = 0; i < 65; ++i) pod.image_pull_secrets.push_back({"s" + std::to_string(i)});
  for (int i = 0; i < 17; ++i) {
    pod.scheduling_gates.push_back(
        json_object(("{\"name\":\"g" + std::to_string(i) + "\"}").c_str()));
  }
  job.spec.runtime_patches = {patch_with_pod("kueue.x-k8s.io/manager", pod)};
  const std::string base =
      "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec."
      "template.spec.";
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{base + "serviceAccountName: Too long: may not be more than 253 bytes",
                base + "volumes: Too many: 129: must have at most 128 items",
                base + "initContainers: Too many: 65: must have at most 64 items",
                base + "initContainers[64]: Duplicate value: {\"name\":\"c0\"}",
                base + "containers: Too many: 65: must have at most 64 items",
                base + "imagePullSecrets: Too many: 65: must have at most 64 items",
                base + "tolerations: Too many: 129: must have at most 128 items",
                base + "schedulingGates: Too many: 17: must have at most 16 items",
                base + "terminationGracePeriodSeconds: Invalid value: -1: " + base +
                    "terminationGracePeriodSeconds in body should be greater than or equal to 0"});
}

TEST_CASE("runtime patch containers and replicated jobs", "[validation][trainjob]") {
  auto job = valid_job();
  trainer::PodSpecPatch pod;
  trainer::ContainerPatch c;
  c.env = {env("A", "1"), env("A", "1")};
  c.volume_mounts = {json_object(R"({"name":"data"})")};
  pod.containers.push_back(c);
  auto patch = patch_with_pod("kueue.x-k8s.io/manager", pod, "");
  auto& jobs = patch.training_runtime_spec->template_->spec->replicated_jobs;
  for (int i = 0; i < 100; ++i) jobs.push_back(jobs.front());
  jobs[1].name = std::string(254, 'j');
  job.spec.runtime_patches.push_back(patch);
  const auto r = rendered(trainer::validate_train_job(job));
  const std::string rj = "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs";
  const std::string c0 = rj + "[0].template.spec.template.spec.containers[0]";
  REQUIRE(r.size() >= 7);
  CHECK(r[0] == rj + ": Too many: 101: must have at most 100 items");
  CHECK(r[1] == rj + "[2]: Duplicate value: {\"name\":\"\"}");
  CHECK(r[2] == rj + "[0].name: Required value");
  CHECK(r[3] == c0 + ".name: Required value");
  CHECK(r[4] == c0 + ".env[1]: Duplicate value: {\"name\":\"A\"}");
  CHECK(r[5] == c0 + ".volumeMounts[0].mountPath: Required value");
  CHECK(r[6] == rj + "[1].name: Too long: may not be more than 253 bytes");
}

TEST_CASE("status rules", "[validation][trainjob][status]") {
  auto job = valid_job();
  job.status = trainer::TrainJobStatus{};
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"status: Invalid value: 0: status in body should have at least 1 properties"});

  trainer::Condition ok{"Complete", "True", 1, "2025-01-01T00:00:00Z", "AllJobsCompleted", "done"};
  job.status->conditions = {ok};
  trainer::JobStatus js{"node", 0, 1, 0, 0, 0};
  job.status->jobs_status = {js};
  trainer::TrainerStatus ts;
  ts.progress_percentage = 100;
  ts.estimated_remaining_seconds = 0;
  ts.metrics = {{"loss", "0.1"}};
  ts.last_updated_time = "2025-01-01T00:00:00Z";
  job.status->trainer_status = ts;
  CHECK(trainer::validate_train_job(job).ok());

  trainer::Condition bad{"Bad Type", "Maybe", -1, "", "1reason", "m"};
  job.status->conditions = {ok, ok, bad};
  CHECK(
      rendered(trainer::validate_train_job(job)) ==
      Strings{"status.conditions[1]: Duplicate value: {\"type\":\"Complete\"}",
              "status.conditions[2].type: Invalid value: \"Bad Type\": status.conditions[2].type "
              "in body should match '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9]"
              ")?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$'",
              "status.conditions[2].status: Unsupported value: \"Maybe\": supported values: "
              "\"True\", \"False\", \"Unknown\"",
              "status.conditions[2].observedGeneration: Invalid value: -1: "
              "status.conditions[2].observedGeneration in body should be greater than or equal "
              "to 0",
              "status.conditions[2].lastTransitionTime: Required value",
              "status.conditions[2].reason: Invalid value: \"1reason\": "
              "status.conditions[2].reason in body should match "
              "'^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'"});

  job.status->conditions = std::vector<trainer::Condition>(9, ok);
  for (std::size_t i = 0; i < 9; ++i) job.status->conditions[i].type = "T" + std::to_string(i);
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"status.conditions: Too many: 9: must have at most 8 items"});
}

TEST_CASE("jobsStatus and trainerStatus rules", "[validation][trainjob][status]") {
  auto job = valid_job();
  job.status = trainer::TrainJobStatus{};
  trainer::JobStatus js;
  js.name = "node";
  js.ready = -1;
  job.status->jobs_status = {js, js};
  trainer::TrainerStatus ts;
  ts.progress_percentage = 101;
  ts.estimated_remaining_seconds = -5;
  ts.metrics = {{"", std::string(65, 'v')}};
  job.status->trainer_status = ts;
  const auto r = rendered(trainer::validate_train_job(job));
  const Strings first_job = {
      "status.jobsStatus[1]: Duplicate value: {\"name\":\"node\"}",
      "status.jobsStatus[0].ready: Invalid value: -1: status.jobsStatus[0].ready in body should "
      "be greater than or equal to 0",
      "status.jobsStatus[0].succeeded: Required value",
      "status.jobsStatus[0].failed: Required value",
      "status.jobsStatus[0].active: Required value",
      "status.jobsStatus[0].suspended: Required value"};
  REQUIRE(r.size() == 1 + 5 + 5 + 5);
  CHECK(Strings(r.begin(), r.begin() + 6) == first_job);
  CHECK(Strings(r.end() - 5, r.end()) ==
        Strings{"status.trainerStatus: Invalid value: lastUpdatedTime is required when "
                "trainerStatus is present",
                "status.trainerStatus.progressPercentage: Invalid value: 101: "
                "status.trainerStatus.progressPercentage in body should be less than or equal to "
                "100",
                "status.trainerStatus.estimatedRemainingSeconds: Invalid value: -5: "
                "status.trainerStatus.estimatedRemainingSeconds in body should be greater than or "
                "equal to 0",
                "status.trainerStatus.metrics[0].name: Required value",
                "status.trainerStatus.metrics[0].value: Too long: may not be more than 64 bytes"});

  job.status->jobs_status.clear();
  job.status->trainer_status->metrics = std::vector<trainer::Metric>(257, {"m", "v"});
  job.status->trainer_status->progress_percentage = 0;
  job.status->trainer_status->estimated_remaining_seconds = 0;
  job.status->trainer_status->last_updated_time = "2025-01-01T00:00:00Z";
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{"status.trainerStatus.metrics: Too many: 257: must have at most 256 items"});
}

TEST_CASE("every violation is collected in field order", "[validation][trainjob]") {
  auto job = valid_job();
  job.metadata.name = "Bad";
  job.spec.runtime_ref.name.clear();
  job.spec.trainer = trainer::Trainer{};
  job.spec.trainer->num_nodes = -2;
  job.spec.managed_by = "x";
  const auto r = trainer::validate_train_job(job);
  CHECK(rendered(r) ==
        Strings{not_a_subdomain("Bad"),
                "<nil>: Invalid value: metadata.name must match RFC 1035 DNS label format",
                "spec.runtimeRef.name: Required value",
                "spec.trainer.numNodes: Invalid value: -2: spec.trainer.numNodes in body should "
                "be greater than or equal to 0",
                "spec.managedBy: Invalid value: \"x\": ManagedBy must be "
                "trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set"});
  const trainer::Error e = r.to_error();
  CHECK(e.code == trainer::ErrorCode::kInvalid);
  CHECK(e.fields.size() == 5);
  CHECK(e.message.rfind("[metadata.name: Invalid value: \"Bad\"", 0) == 0);
}
