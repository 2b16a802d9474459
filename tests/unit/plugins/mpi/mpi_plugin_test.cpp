// SPDX-License-Identifier: Apache-2.0
#include "mpi/mpi_plugin.hpp"

#include "trainer/base64.hpp"
#include "trainer/ssh.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

namespace {

namespace json = boost::json;
using namespace trainer;

constexpr const char* kFakePem =
    "-----BEGIN EC PRIVATE KEY-----\nZmFrZQ==\n-----END EC PRIVATE KEY-----\n";
constexpr const char* kFakeAuthorizedKey = "ecdsa-sha2-nistp521 ZmFrZQ==\n";

struct Fixture {
  std::unique_ptr<Plugin> plugin = plugins::make_mpi_plugin();
  int keygen_calls = 0;
  RenderContext ctx;

  Fixture() {
    ctx.train_job_uid = "uid-1";
    ctx.generate_ssh_key = [this]() -> Result<SshKeyPair> {
      ++keygen_calls;
      return SshKeyPair{kFakePem, kFakeAuthorizedKey};
    };
  }
  EnforceMLPolicyPlugin& enforcer() { return dynamic_cast<EnforceMLPolicyPlugin&>(*plugin); }
  ComponentBuilderPlugin& builder() { return dynamic_cast<ComponentBuilderPlugin&>(*plugin); }
  CustomValidationPlugin& validator() { return dynamic_cast<CustomValidationPlugin&>(*plugin); }
};

Container container(std::string name, json::array env = {}, json::array mounts = {}) {
  Container c;
  c.name = std::move(name);
  c.env = std::move(env);
  c.volume_mounts = std::move(mounts);
  return c;
}

PodSet pod_set(std::string name, std::optional<std::string> ancestor, std::vector<Container> cs,
               json::array volumes = {}) {
  PodSet ps;
  ps.name = std::move(name);
  ps.ancestor = std::move(ancestor);
  ps.count = 1;
  ps.containers = std::move(cs);
  ps.volumes = std::move(volumes);
  return ps;
}

MPIMLPolicySource mpi_policy(std::int32_t slots = 1, bool launcher_as_node = false,
                             std::string mount = "/root/.ssh") {
  MPIMLPolicySource mpi;
  mpi.num_proc_per_node = slots;
  mpi.mpi_implementation = "OpenMPI";
  mpi.ssh_auth_mount_path = std::move(mount);
  mpi.run_launcher_as_node = launcher_as_node;
  return mpi;
}

Info info_with(MPIMLPolicySource mpi, std::vector<PodSet> pod_sets) {
  Info info;
  MLPolicy ml;
  ml.num_nodes = 1;
  ml.mpi = std::move(mpi);
  info.runtime_policy.ml_policy = std::move(ml);
  info.template_spec.pod_sets = std::move(pod_sets);
  return info;
}

TrainJob job_named(std::string name, std::optional<std::int32_t> num_nodes,
                   std::optional<std::int32_t> num_proc_per_node = std::nullopt) {
  TrainJob job;
  job.metadata.name = std::move(name);
  job.metadata.namespace_ = "default";
  Trainer trainer;
  trainer.num_nodes = num_nodes;
  trainer.num_proc_per_node = num_proc_per_node;
  job.spec.trainer = std::move(trainer);
  return job;
}

// Conformance case 18's runtime (initializers, launcher, node) as PodSets.
Info conformance18_info() {
  json::array init_volume =
      json::parse(R"([{"name":"initializer","persistentVolumeClaim":{"claimName":"initializer"}}])")
          .as_array();
  return info_with(
      mpi_policy(1),
      {pod_set("dataset-initializer", "dataset-initializer", {container("dataset-initializer")},
               init_volume),
       pod_set("model-initializer", "model-initializer", {container("model-initializer")},
               init_volume),
       pod_set("launcher", std::nullopt, {container("node")}),
       pod_set("node", "trainer",
               {container("node", {},
                          json::parse(R"([{"name":"initializer","mountPath":"/workspace/dataset"},
                                          {"name":"initializer","mountPath":"/workspace/model"}])")
                              .as_array())},
               init_volume)});
}

const json::value kSshVolume = json::parse(R"({
  "name": "mpi-ssh-auth",
  "secret": {"secretName": "test-job-mpi-ssh-auth", "defaultMode": 256,
             "items": [{"key": "ssh-privatekey", "path": "id_rsa", "mode": 416},
                       {"key": "ssh-publickey", "path": "id_rsa.pub", "mode": 420},
                       {"key": "ssh-publickey", "path": "authorized_keys", "mode": 420}]}})");
const json::value kHostfileVolume = json::parse(R"({
  "name": "mpi-hostfile",
  "configMap": {"name": "test-job-mpi-hostfile",
                "items": [{"key": "hostfile", "path": "hostfile", "mode": 292}]}})");

}  // namespace

TEST_CASE("MPI: registry name and extension points", "[mpi]") {
  Fixture f;
  CHECK(f.plugin->name() == "MPI");
  CHECK(dynamic_cast<CustomValidationPlugin*>(f.plugin.get()) != nullptr);
  CHECK(dynamic_cast<EnforceMLPolicyPlugin*>(f.plugin.get()) != nullptr);
  CHECK(dynamic_cast<ComponentBuilderPlugin*>(f.plugin.get()) != nullptr);
  CHECK(dynamic_cast<PreComponentBuilderPlugin*>(f.plugin.get()) == nullptr);
}

TEST_CASE("MPI: conformance 18, separate launcher, slots from numProcPerNode", "[mpi]") {
  Fixture f;
  Info info = conformance18_info();
  TrainJob job = job_named("test-job", 2, 8);
  REQUIRE(f.enforcer().enforce_ml_policy(info, job, trainer::RenderContext{}));

  CHECK(info.runtime_policy.ml_policy->mpi->num_proc_per_node == 8);
  const auto& ps = info.template_spec.pod_sets;
  CHECK(ps[3].count == 2);  // node = numNodes
  CHECK(ps[2].count == 1);  // launcher keeps its own
  // Initializers untouched.
  CHECK(ps[0].volumes.size() == 1);
  CHECK(ps[0].containers[0].volume_mounts.empty());
  CHECK(ps[0].containers[0].env.empty());
  // Launcher: both volumes, both mounts, the four OMPI_MCA_* in upstream's order.
  CHECK(json::value(ps[2].volumes) == json::value(json::array{kSshVolume, kHostfileVolume}));
  CHECK(json::value(ps[2].containers[0].volume_mounts) == json::parse(R"([
    {"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"},
    {"name": "mpi-hostfile", "mountPath": "/etc/mpi"}])"));
  CHECK(json::value(ps[2].containers[0].env) == json::parse(R"([
    {"name": "OMPI_MCA_orte_default_hostfile", "value": "/etc/mpi/hostfile"},
    {"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "true"},
    {"name": "OMPI_MCA_orte_set_default_slots", "value": "8"},
    {"name": "OMPI_MCA_plm_rsh_args", "value": "-o ConnectionAttempts=10"}])"));
  // Node: the SSH volume after the initializer volume, the SSH mount only, no env.
  CHECK(json::value(ps[3].volumes) == json::value(json::array{ps[3].volumes[0], kSshVolume}));
  CHECK(ps[3].volumes[0].at("name") == "initializer");
  CHECK(ps[3].containers[0].volume_mounts.size() == 3);
  CHECK(ps[3].containers[0].volume_mounts[2] ==
        json::parse(R"({"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"})"));
  CHECK(ps[3].containers[0].env.empty());

  // Endpoints as the JobSet pre-build step sets them (reference 4.1.1).
  info.template_spec.pod_sets[2].endpoints = {"test-job-launcher-0-0.test-job"};
  info.template_spec.pod_sets[3].endpoints = {"test-job-node-0-0.test-job",
                                              "test-job-node-0-1.test-job"};
  auto objects = f.builder().build(info, job, f.ctx);
  REQUIRE(objects);
  REQUIRE(objects->size() == 2);
  CHECK(f.keygen_calls == 1);
  const json::value owner = json::parse(R"({"apiVersion": "trainer.kubeflow.org/v1alpha1",
    "kind": "TrainJob", "name": "test-job", "uid": "uid-1", "controller": true,
    "blockOwnerDeletion": true})");
  json::object secret = json::parse(R"({
    "apiVersion": "v1", "kind": "Secret",
    "metadata": {"name": "test-job-mpi-ssh-auth", "namespace": "default"},
    "type": "kubernetes.io/ssh-auth", "immutable": true})")
                            .as_object();
  secret["metadata"].as_object()["ownerReferences"] = json::array{owner};
  secret["data"] = json::object{{"ssh-privatekey", trainer::base64_encode(kFakePem)},
                                {"ssh-publickey", trainer::base64_encode(kFakeAuthorizedKey)}};
  CHECK((*objects)[0] == json::value(secret));
  json::object cm = json::parse(R"({
    "apiVersion": "v1", "kind": "ConfigMap",
    "metadata": {"name": "test-job-mpi-hostfile", "namespace": "default"},
    "data": {"hostfile": "test-job-node-0-0.test-job slots=8\ntest-job-node-0-1.test-job slots=8\n"}})")
                        .as_object();
  cm["metadata"].as_object()["ownerReferences"] = json::array{owner};
  CHECK((*objects)[1] == json::value(cm));
}

TEST_CASE("MPI: runLauncherAsNode (reference 7.2): counts, hostfile order, mount path", "[mpi]") {
  Fixture f;
  // deepspeed-distributed: node first, launcher second; the launcher's container is `node`.
  Info info = info_with(
      mpi_policy(1, true, "/home/mpiuser/.ssh"),
      {pod_set("node", std::nullopt, {container("node")}),
       pod_set("launcher", "trainer",
               {container("node", json::parse(R"([{"name": "X", "value": "1"}])").as_array())})});
  TrainJob job = job_named("ds", 3, 2);
  REQUIRE(f.enforcer().enforce_ml_policy(info, job, trainer::RenderContext{}));
  const auto& ps = info.template_spec.pod_sets;
  CHECK(ps[0].count == 2);  // max(3 - 1, 1)
  CHECK(ps[0].containers[0].volume_mounts ==
        json::parse(R"([{"name": "mpi-ssh-auth", "mountPath": "/home/mpiuser/.ssh"}])"));
  // The runtime's env stays first; the OMPI_MCA_* are appended with slots 2.
  REQUIRE(ps[1].containers[0].env.size() == 5);
  CHECK(ps[1].containers[0].env[0].at("name") == "X");
  CHECK(ps[1].containers[0].env[3] ==
        json::parse(R"({"name": "OMPI_MCA_orte_set_default_slots", "value": "2"})"));

  info.template_spec.pod_sets[0].endpoints = {"ds-node-0-0.ds", "ds-node-0-1.ds"};
  info.template_spec.pod_sets[1].endpoints = {"ds-launcher-0-0.ds"};
  auto objects = f.builder().build(info, job, f.ctx);
  REQUIRE(objects);
  REQUIRE(objects->size() == 2);
  CHECK(objects->back().at("data").at("hostfile") ==
        "ds-node-0-0.ds slots=2\nds-node-0-1.ds slots=2\nds-launcher-0-0.ds slots=2\n");

  SECTION("launcher listed first puts its line first") {
    std::swap(info.template_spec.pod_sets[0], info.template_spec.pod_sets[1]);
    auto again = f.builder().build(info, job, f.ctx);
    REQUIRE(again);
    CHECK(again->back().at("data").at("hostfile") ==
          "ds-launcher-0-0.ds slots=2\nds-node-0-0.ds slots=2\nds-node-0-1.ds slots=2\n");
  }
}

TEST_CASE("MPI: node counts", "[mpi]") {
  Fixture f;
  auto count_after = [&](bool launcher_as_node, std::optional<std::int32_t> num_nodes) {
    Info info = info_with(mpi_policy(1, launcher_as_node),
                          {pod_set("launcher", std::nullopt, {container("node")}),
                           pod_set("node", "trainer", {container("node")})});
    info.template_spec.pod_sets[1].count = 5;
    TrainJob job = job_named("j", num_nodes);
    REQUIRE(f.enforcer().enforce_ml_policy(info, job, trainer::RenderContext{}));
    CHECK(info.template_spec.pod_sets[0].count == 1);
    return *info.template_spec.pod_sets[1].count;
  };
  CHECK(count_after(false, 4) == 4);
  CHECK(count_after(true, 4) == 3);
  CHECK(count_after(true, 1) == 1);  // max(0, 1)
  CHECK(count_after(false, std::nullopt) == 5);
  CHECK(count_after(true, std::nullopt) == 5);
}

TEST_CASE("MPI: slots from the GPU count (reference 3.8, 4.3.1)", "[mpi]") {
  Fixture f;
  auto slots_after = [&](std::int32_t runtime_slots, std::optional<std::string> job_resources,
                         std::optional<std::string> runtime_resources,
                         std::optional<std::int32_t> job_slots = std::nullopt) {
    Info info = info_with(mpi_policy(runtime_slots),
                          {pod_set("launcher", std::nullopt, {container("node")}),
                           pod_set("node", "trainer", {container("node")})});
    if (runtime_resources) {
      info.template_spec.jobset_spec =
          json::parse(
              R"({"replicatedJobs": [{"name": "launcher", "template": {"spec": {"template": {"spec":
              {"containers": [{"name": "node"}]}}}}},
            {"name": "node", "template": {"spec": {"template": {"spec": {"containers": [
              {"name": "node", "resources": )" +
              *runtime_resources + "}]}}}}}]}")
              .as_object();
    }
    TrainJob job = job_named("j", 2, job_slots);
    if (job_resources) {
      job.spec.trainer->resources_per_node = json::parse(*job_resources).as_object();
    }
    REQUIRE(f.enforcer().enforce_ml_policy(info, job, trainer::RenderContext{}));
    const auto slots = info.runtime_policy.ml_policy->mpi->num_proc_per_node.value();
    CHECK(info.template_spec.pod_sets[0].containers[0].env[2].at("value") ==
          json::value(std::to_string(slots)));
    return slots;
  };
  CHECK(slots_after(1, R"({"limits": {"nvidia.com/gpu": "4"}})", std::nullopt) == 4);
  CHECK(slots_after(1, R"({"requests": {"amd.com/GPU": "2"}})", std::nullopt) == 2);
  CHECK(slots_after(1, std::nullopt, R"({"limits": {"nvidia.com/gpu": 8}})") == 8);
  // The runtime's own value wins over GPUs when it is not 1; the TrainJob's over everything.
  CHECK(slots_after(2, R"({"limits": {"nvidia.com/gpu": "4"}})", std::nullopt) == 2);
  CHECK(slots_after(1, R"({"limits": {"nvidia.com/gpu": "4"}})", std::nullopt, 3) == 3);
  // One GPU keeps 1; TrainJob CPU-only resources hide the runtime's GPUs (reference Q5).
  CHECK(slots_after(1, R"({"limits": {"nvidia.com/gpu": "1"}})", std::nullopt) == 1);
  CHECK(slots_after(1, R"({"limits": {"cpu": "4"}})", R"({"limits": {"nvidia.com/gpu": 8}})") == 1);
}

TEST_CASE("MPI: only containers named node get mounts and env (reference Q8); idempotent",
          "[mpi]") {
  Fixture f;
  Info info = info_with(
      mpi_policy(1), {pod_set("launcher", std::nullopt, {container("launcher"), container("node")}),
                      pod_set("node", "trainer", {container("node")}),
                      pod_set("other", std::nullopt, {container("node")})});
  TrainJob job = job_named("test-job", 2);
  REQUIRE(f.enforcer().enforce_ml_policy(info, job, trainer::RenderContext{}));
  const Info once = info;
  REQUIRE(f.enforcer().enforce_ml_policy(info, job, trainer::RenderContext{}));
  const auto& ps = info.template_spec.pod_sets;
  CHECK(ps[0].containers[0].env.empty());
  CHECK(ps[0].containers[0].volume_mounts.empty());
  CHECK(ps[0].containers[1].env.size() == 4);
  CHECK(ps[0].volumes.size() == 2);
  CHECK(ps[2].volumes.empty());  // neither node nor launcher
  CHECK(ps[2].containers[0].volume_mounts.empty());
  // Upserts: a second run changes nothing.
  for (std::size_t i = 0; i < ps.size(); ++i) {
    CHECK(ps[i].volumes == once.template_spec.pod_sets[i].volumes);
    for (std::size_t c = 0; c < ps[i].containers.size(); ++c) {
      CHECK(ps[i].containers[c].env == once.template_spec.pod_sets[i].containers[c].env);
      CHECK(ps[i].containers[c].volume_mounts ==
            once.template_spec.pod_sets[i].containers[c].volume_mounts);
    }
  }
}

TEST_CASE("MPI: implementations other than OpenMPI are refused before any change", "[mpi]") {
  Fixture f;
  for (const char* impl : {"MPICH", "IntelMPI", ""}) {
    Info info = conformance18_info();
    info.runtime_policy.ml_policy->mpi->mpi_implementation = impl;
    TrainJob job = job_named("test-job", 2, 8);
    auto r = f.enforcer().enforce_ml_policy(info, job, trainer::RenderContext{});
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kUnsupported);
    CHECK(r.error().message == std::string("MPI implementation \"") + impl +
                                   "\" is not supported: only \"OpenMPI\" is implemented "
                                   "(mlPolicy.mpi.mpiImplementation)");
    CHECK(info.template_spec.pod_sets[2].volumes.empty());
    CHECK(info.template_spec.pod_sets[3].count == 1);
    auto built = f.builder().build(info, job, f.ctx);
    REQUIRE_FALSE(built);
    CHECK(built.error().code == ErrorCode::kUnsupported);
  }
  CHECK(f.keygen_calls == 0);
}

TEST_CASE("MPI: inactive without mlPolicy.mpi", "[mpi]") {
  Fixture f;
  Info info = conformance18_info();
  info.runtime_policy.ml_policy->mpi.reset();
  info.runtime_policy.ml_policy->torch = TorchMLPolicySource{};
  TrainJob job = job_named("test-job", 2, 8);
  job.spec.trainer->env.push_back(json::object{{"name", "OMPI_MCA_plm_rsh_args"}, {"value", "x"}});
  const Info before = info;
  REQUIRE(f.enforcer().enforce_ml_policy(info, job, trainer::RenderContext{}));
  CHECK(info.template_spec.pod_sets[2].volumes == before.template_spec.pod_sets[2].volumes);
  CHECK(info.template_spec.pod_sets[3].count == 1);
  auto objects = f.builder().build(info, job, f.ctx);
  REQUIRE(objects);
  CHECK(objects->empty());
  CHECK(f.validator().validate(info, nullptr, job, f.ctx).ok());
}

TEST_CASE("MPI: an existing Secret is kept (immutable), the hostfile is always built", "[mpi]") {
  Fixture f;
  std::vector<std::string> lookups;
  f.ctx.lookup = [&](std::string_view api_version, std::string_view kind, std::string_view ns,
                     std::string_view name) -> std::optional<json::value> {
    lookups.push_back(std::string(api_version) + "|" + std::string(kind) + "|" + std::string(ns) +
                      "|" + std::string(name));
    if (kind == "Secret" && name == "test-job-mpi-ssh-auth") return json::object{};
    return std::nullopt;
  };
  Info info = conformance18_info();
  TrainJob job = job_named("test-job", 2, 8);
  REQUIRE(f.enforcer().enforce_ml_policy(info, job, trainer::RenderContext{}));
  auto objects = f.builder().build(info, job, f.ctx);
  REQUIRE(objects);
  REQUIRE(objects->size() == 1);
  CHECK(objects->front().at("kind") == "ConfigMap");
  CHECK(objects->front().at("data").at("hostfile") == "");  // no endpoints set
  CHECK(f.keygen_calls == 0);
  CHECK(lookups == std::vector<std::string>{"v1|Secret|default|test-job-mpi-ssh-auth"});
}

TEST_CASE("MPI: key generation failures stop the build", "[mpi]") {
  Fixture f;
  f.ctx.generate_ssh_key = []() -> Result<SshKeyPair> {
    return fail(ErrorCode::kUser, "no entropy today");
  };
  Info info = conformance18_info();
  TrainJob job = job_named("test-job", 2, 8);
  REQUIRE(f.enforcer().enforce_ml_policy(info, job, trainer::RenderContext{}));
  auto objects = f.builder().build(info, job, f.ctx);
  REQUIRE_FALSE(objects);
  CHECK(objects.error().code == ErrorCode::kUser);
  CHECK(objects.error().message == "failed to build SSH Auth secret: no entropy today");
}

TEST_CASE("MPI: without a key generator in the context a fresh P-521 key is used", "[mpi]") {
  Fixture f;
  f.ctx.generate_ssh_key = nullptr;
  f.ctx.train_job_uid.clear();
  Info info = conformance18_info();
  TrainJob job = job_named("test-job", 2, 8);
  job.metadata.uid = "own-uid";
  REQUIRE(f.enforcer().enforce_ml_policy(info, job, trainer::RenderContext{}));
  auto objects = f.builder().build(info, job, f.ctx);
  REQUIRE(objects);
  REQUIRE(objects->size() == 2);
  const auto& secret = objects->front();
  CHECK(secret.at("metadata").at("ownerReferences").at(0).at("uid") == "own-uid");
  auto pem = trainer::base64_decode(secret.at("data").at("ssh-privatekey").as_string());
  auto pub = trainer::base64_decode(secret.at("data").at("ssh-publickey").as_string());
  REQUIRE(pem);
  REQUIRE(pub);
  CHECK(pem->rfind("-----BEGIN EC PRIVATE KEY-----\n", 0) == 0);
  // The public key is the private key's own half.
  auto derived = ssh_key_pair_from_private_key(*pem);
  REQUIRE(derived);
  CHECK(derived->authorized_key == *pub);
}

TEST_CASE("MPI validation M1: launcher-as-node needs launcher and node PodSets", "[mpi]") {
  Fixture f;
  const auto errors_for = [&](bool launcher_as_node, std::optional<std::int32_t> num_nodes,
                              std::vector<std::string> pod_sets) {
    std::vector<PodSet> ps;
    for (auto& n : pod_sets) ps.push_back(pod_set(n, std::nullopt, {container("node")}));
    const Info info = info_with(mpi_policy(1, launcher_as_node), std::move(ps));
    return f.validator().validate(info, nullptr, job_named("j", num_nodes), f.ctx).errors;
  };
  const auto errors = errors_for(true, 2, {"node"});
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].to_string() ==
        "spec.trainer.numNodes: Invalid value: 2: must have 1 when MPI trainingRuntime with "
        "enabled runLauncherAsNode does not have either launcher and node");
  CHECK(errors_for(true, 3, {"launcher"}).size() == 1);
  CHECK(errors_for(true, 2, {"launcher", "node"}).empty());
  CHECK(errors_for(true, 1, {"node"}).empty());
  CHECK(errors_for(true, std::nullopt, {"node"}).empty());  // nil counts as 1
  CHECK(errors_for(false, 2, {"node"}).empty());
}

TEST_CASE("MPI validation M2: reserved OMPI_MCA_* env names", "[mpi]") {
  Fixture f;
  const Info info = conformance18_info();
  TrainJob job = job_named("j", 2);
  job.spec.trainer->env = {json::object{{"name", "OMPI_MCA_plm_rsh_args"}, {"value", "-p 22"}},
                           json::object{{"name", "X"}, {"value", "1"}},
                           json::object{{"name", "OMPI_MCA_orte_default_hostfile"}, {"value", "h"}},
                           json::object{{"name", "OMPI_MCA_plm_rsh_args"}, {"value", "again"}}};
  const auto result = f.validator().validate(info, nullptr, job, f.ctx);
  REQUIRE(result.errors.size() == 1);
  const auto& e = result.errors[0];
  CHECK(e.type == FieldErrorType::kInvalid);
  CHECK(e.path == "spec.trainer.env");
  CHECK(e.detail ==
        "must not have reserved envs, invalid envs configured: [OMPI_MCA_orte_default_hostfile "
        "OMPI_MCA_plm_rsh_args]");
  REQUIRE(e.value);
  CHECK(e.value->as_array().size() == 4);  // the whole env list, as upstream
  CHECK(result.warnings.empty());

  job.spec.trainer->env = {json::object{{"name", "OMPI_MCA_btl"}, {"value", "tcp"}}};
  CHECK(f.validator().validate(info, nullptr, job, f.ctx).ok());
}
