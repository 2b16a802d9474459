// SPDX-License-Identifier: Apache-2.0
//
// The documented rules of include/trainer/plugin_support.hpp, the helpers plugin authors use.
// The public header comes first so this file also proves it compiles on its own.
#include "trainer/plugin_support.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

#include <string>

namespace json = boost::json;

namespace {

json::array arr(const char* text) {
  return json::parse(text).as_array();
}

json::object obj(const char* text) {
  return json::parse(text).as_object();
}

trainer::TrainJob job_named(std::string name) {
  trainer::TrainJob job;
  job.metadata.name = std::move(name);
  return job;
}

trainer::Container container(std::string name) {
  trainer::Container c;
  c.name = std::move(name);
  return c;
}

// An initializer PodSet and a trainer `node` PodSet with an init container `prep`.
trainer::Info two_pod_sets() {
  trainer::Info info;
  trainer::PodSet init;
  init.name = "dataset-initializer";
  init.ancestor = trainer::kAncestorDatasetInitializer;
  init.containers.push_back(container("dataset-initializer"));
  trainer::PodSet node;
  node.name = trainer::kNodeName;
  node.ancestor = trainer::kAncestorTrainer;
  node.init_containers.push_back(container("prep"));
  node.containers.push_back(container(trainer::kNodeName));
  info.template_spec.pod_sets = {init, node};
  return info;
}

}  // namespace

TEST_CASE("upsert_port matches by name, by containerPort, and absent name == absent name",
          "[plugin_support]") {
  SECTION("same name, other port: replaced in place") {
    auto ports = arr(R"([{"name":"http","containerPort":8080},{"name":"x","containerPort":1}])");
    trainer::upsert_port(ports, obj(R"({"name":"http","containerPort":9090})"));
    CHECK(json::serialize(ports) ==
          R"([{"name":"http","containerPort":9090},{"name":"x","containerPort":1}])");
  }
  SECTION("same containerPort, other name: replaced") {
    auto ports = arr(R"([{"name":"a","containerPort":29500}])");
    trainer::upsert_port(ports, obj(R"({"name":"b","containerPort":29500})"));
    CHECK(json::serialize(ports) == R"([{"name":"b","containerPort":29500}])");
  }
  SECTION("both unnamed: replaced although the numbers differ") {
    auto ports = arr(R"([{"containerPort":8080}])");
    trainer::upsert_port(ports, obj(R"({"containerPort":29500})"));
    CHECK(json::serialize(ports) == R"([{"containerPort":29500}])");
  }
  SECTION("unnamed against named, other port: appended") {
    auto ports = arr(R"([{"name":"http","containerPort":8080}])");
    trainer::upsert_port(ports, obj(R"({"containerPort":29500})"));
    CHECK(ports.size() == 2);
  }
}

TEST_CASE("upsert_volume_mount matches by mountPath, not by name", "[plugin_support]") {
  auto mounts = arr(R"([{"name":"a","mountPath":"/data"}])");
  trainer::upsert_volume_mount(mounts, obj(R"({"name":"b","mountPath":"/data"})"));
  CHECK(json::serialize(mounts) == R"([{"name":"b","mountPath":"/data"}])");
  trainer::upsert_volume_mount(mounts, obj(R"({"name":"b","mountPath":"/other"})"));
  CHECK(mounts.size() == 2);
  auto volumes = arr(R"([{"name":"v","emptyDir":{}}])");
  trainer::upsert_volume(volumes, obj(R"({"name":"v","secret":{"secretName":"s"}})"));
  CHECK(json::serialize(volumes) == R"([{"name":"v","secret":{"secretName":"s"}}])");
}

TEST_CASE("owner reference and owned metadata point at the TrainJob as controller",
          "[plugin_support]") {
  auto job = job_named("mnist");
  job.metadata.uid = "from-job";
  CHECK(json::serialize(trainer::train_job_owner_reference(job, "uid-1")) ==
        R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","name":"mnist",)"
        R"("uid":"uid-1","controller":true,"blockOwnerDeletion":true})");

  trainer::RenderContext ctx;
  CHECK(trainer::effective_uid(job, ctx) == "from-job");
  ctx.train_job_uid = "from-context";
  CHECK(trainer::effective_uid(job, ctx) == "from-context");

  // No namespace key while the TrainJob has none; `default` is what train_job_namespace reports.
  auto meta = trainer::owned_object_metadata("mnist-cm", job, "u");
  CHECK(meta.at("name") == "mnist-cm");
  CHECK_FALSE(meta.contains("namespace"));
  CHECK(meta.at("ownerReferences").as_array().at(0).as_object().at("uid") == "u");
  CHECK(trainer::train_job_namespace(job) == "default");
  job.metadata.namespace_ = "team";
  CHECK(trainer::owned_object_metadata("x", job, "u").at("namespace") == "team");
  CHECK(trainer::train_job_namespace(job) == "team");
}

TEST_CASE("job names: rank0_host and job_name", "[plugin_support]") {
  CHECK(trainer::rank0_host(job_named("mnist")) == "mnist-node-0-0.mnist");
  CHECK(trainer::job_name(trainer::TrainJob{}).empty());
  CHECK(trainer::kContainerTrainerPort == 29500);
}

TEST_CASE("gpu and cpu counts per node round up", "[plugin_support]") {
  CHECK(trainer::cpu_count_per_node(obj(R"({"requests":{"cpu":"2.5"}})")) == 3);
  CHECK(trainer::cpu_count_per_node(obj(R"({"requests":{"cpu":"2500m"}})")) == 3);
  CHECK(trainer::cpu_count_per_node(obj(R"({"limits":{"cpu":"0.7"}})")) == 1);
  // A zero request falls back to the limit; neither set is 0.
  CHECK(trainer::cpu_count_per_node(obj(R"({"requests":{"cpu":"0"},"limits":{"cpu":"4"}})")) == 4);
  CHECK(trainer::cpu_count_per_node(json::object{}) == 0);

  CHECK(trainer::gpu_count_per_node(obj(R"({"requests":{"nvidia.com/gpu":"1500m"}})")) == 2);
  CHECK(trainer::gpu_count_per_node(obj(R"({"limits":{"amd.com/GPU":2}})")) == 2);
  // Several `*gpu*` names: the lexicographically first decides.
  CHECK(trainer::gpu_count_per_node(obj(R"({"requests":{"b-gpu":"4","a-gpu":"1"}})")) == 1);
  CHECK(trainer::gpu_count_per_node(obj(R"({"requests":{"cpu":"8"}})")) == 0);
  auto bad = trainer::gpu_count_per_node(obj(R"({"requests":{"nvidia.com/gpu":"lots"}})"));
  REQUIRE_FALSE(bad);
}

TEST_CASE("container lookups: by ancestor (regular only), by pod set name (init too)",
          "[plugin_support]") {
  auto info = two_pod_sets();
  auto& node = info.template_spec.pod_sets[1];
  CHECK(trainer::find_container_by_ancestor(info, trainer::kAncestorTrainer, "node") ==
        &node.containers[0]);
  CHECK(trainer::find_container_by_ancestor(info, trainer::kAncestorTrainer, "prep") == nullptr);
  CHECK(trainer::find_container_by_ancestor(info, trainer::kAncestorModelInitializer, "node") ==
        nullptr);
  CHECK(trainer::find_container_by_pod_set_name(info, "node", "prep") == &node.init_containers[0]);
  CHECK(trainer::find_container_by_pod_set_name(info, "node", "node") == &node.containers[0]);
  CHECK(trainer::find_container_by_pod_set_name(info, "none", "node") == nullptr);
  const auto& cinfo = info;
  CHECK(trainer::find_container_by_pod_set_name(cinfo, "dataset-initializer",
                                                "dataset-initializer") ==
        &info.template_spec.pod_sets[0].containers[0]);
}

TEST_CASE("resources_per_node: the TrainJob's resourcesPerNode, else the runtime's node",
          "[plugin_support]") {
  trainer::Info info;
  info.template_spec.jobset_spec = obj(R"({"replicatedJobs":[
    {"name":"node","template":{"spec":{"template":{"spec":{"containers":[
      {"name":"node","resources":{"limits":{"nvidia.com/gpu":2}}}]}}}}}]})");
  auto job = job_named("j");
  CHECK(json::serialize(trainer::resources_per_node(info, job)) ==
        R"({"limits":{"nvidia.com/gpu":2}})");
  job.spec.trainer.emplace();
  job.spec.trainer->resources_per_node = obj(R"({"requests":{"cpu":"1"}})");
  CHECK(json::serialize(trainer::resources_per_node(info, job)) == R"({"requests":{"cpu":"1"}})");
  CHECK_FALSE(trainer::extract_resource_per_node_from_runtime(trainer::Info{}));
}
