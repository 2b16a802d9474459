// SPDX-License-Identifier: Apache-2.0
// Flux plugin (reference 4.7): EnforceMLPolicy mutations, the entrypoint ConfigMap (scripts
// compared byte for byte with upstream's rendering, see data/README.md), the CURVE Secret
// (X25519 from SHA-256(UID), Z85) and the validation rules.
#include "flux/flux_detail.hpp"
#include "flux/flux_plugin.hpp"
#include "plugin_fixtures.hpp"
#include "trainer/base64.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <sstream>

using namespace fixtures;
namespace detail = trainer::plugins::detail;

namespace {

std::string read_data(const std::string& name) {
  std::ifstream in(std::string(TRAINER_FLUX_TEST_DATA) + "/" + name, std::ios::binary);
  REQUIRE(in.good());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

trainer::MLPolicy flux_policy(std::int32_t procs = 1) {
  trainer::MLPolicy p;
  p.flux = trainer::FluxMLPolicySource{procs};
  return p;
}

std::unique_ptr<trainer::Plugin> plugin() {
  return trainer::plugins::make_flux_plugin();
}

trainer::Result<void> enforce(trainer::Info& info, trainer::TrainJob& job) {
  auto p = plugin();
  auto* e = dynamic_cast<trainer::EnforceMLPolicyPlugin*>(p.get());
  REQUIRE(e != nullptr);
  return e->enforce_ml_policy(info, job, trainer::RenderContext{});
}

trainer::Result<std::vector<json::value>> build(const trainer::Info& info,
                                                const trainer::TrainJob& job,
                                                std::string uid = "test-uid") {
  auto p = plugin();
  auto* b = dynamic_cast<trainer::ComponentBuilderPlugin*>(p.get());
  REQUIRE(b != nullptr);
  trainer::RenderContext ctx;
  ctx.train_job_uid = std::move(uid);
  return b->build(info, job, ctx);
}

trainer::ValidationResult validate(const trainer::Info& info, const trainer::TrainJob& job) {
  auto p = plugin();
  auto* v = dynamic_cast<trainer::CustomValidationPlugin*>(p.get());
  REQUIRE(v != nullptr);
  return v->validate(info, nullptr, job, trainer::RenderContext{});
}

constexpr const char* kZ85Alphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

}  // namespace

TEST_CASE("Flux: no action without a flux policy", "[flux]") {
  CHECK(plugin()->name() == "Flux");
  auto info = info_with(torch_policy(), {trainer_pod_set()});
  auto job = train_job();
  trainer_of(job).num_nodes = 2;
  REQUIRE(enforce(info, job));
  CHECK(info.template_spec.pod_sets[0].init_containers.empty());
  CHECK(job.spec.trainer->command == std::nullopt);
  auto objects = build(info, job);
  REQUIRE(objects);
  CHECK(objects->empty());
  trainer::Info empty;
  CHECK(validate(empty, train_job()).errors.empty());
}

TEST_CASE("Flux: EnforceMLPolicy mutations", "[flux]") {
  auto info =
      info_with(flux_policy(), {trainer_pod_set(1), pod_set("other", std::nullopt, 1, {"node"})});
  info.template_spec.pod_sets[0].containers[0].command = {"python", "train.py"};
  auto job = train_job();
  trainer_of(job).num_nodes = 2;
  trainer_of(job).args = std::vector<std::string>{"--epochs", "10"};
  REQUIRE(enforce(info, job));

  // The count is PlainML's business (upstream's flux test keeps 1).
  const auto& ps = info.template_spec.pod_sets[0];
  CHECK(ps.count == 1);
  CHECK(job.spec.trainer->command == std::vector<std::string>{"/bin/bash",
                                                              "/etc/flux-config/entrypoint.sh",
                                                              "python train.py --epochs 10"});
  CHECK(job.spec.trainer->args == std::nullopt);

  REQUIRE(ps.init_containers.size() == 1);
  const auto& installer = ps.init_containers[0];
  CHECK(installer.name == "flux-installer");
  CHECK(installer.image == "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy");
  CHECK(installer.command == std::vector<std::string>{"/bin/bash", "/etc/flux-config/init.sh"});
  CHECK(installer.volume_mounts == arr(R"([
    {"name":"flux-install","mountPath":"/mnt/flux"},
    {"name":"test-job-flux-entrypoint","mountPath":"/etc/flux-config","readOnly":true}])"));
  CHECK(installer.env.empty());

  CHECK(ps.containers[0].volume_mounts == arr(R"([
    {"name":"flux-install","mountPath":"/mnt/flux"},
    {"name":"spack-install","mountPath":"/opt/software"},
    {"name":"test-job-flux-entrypoint","mountPath":"/etc/flux-config","readOnly":true},
    {"name":"flux-curve","mountPath":"/curve","readOnly":true},
    {"name":"shared-memory","mountPath":"/dev/shm","readOnly":true}])"));
  CHECK(ps.volumes == arr(R"([
    {"name":"spack-install","emptyDir":{}},
    {"name":"flux-install","emptyDir":{}},
    {"name":"test-job-flux-entrypoint","configMap":{"name":"test-job-flux-entrypoint","defaultMode":493}},
    {"name":"shared-memory","emptyDir":{"medium":"Memory"}},
    {"name":"flux-curve","secret":{"secretName":"test-job-flux-curve","defaultMode":256}}])"));

  // Only PodSets named node are touched.
  const auto& other = info.template_spec.pod_sets[1];
  CHECK(other.init_containers.empty());
  CHECK(other.volumes.empty());
  CHECK(other.containers[0].volume_mounts.empty());
}

TEST_CASE("Flux: the PodSet is picked by name, not ancestor; existing volumes are upserted",
          "[flux]") {
  auto info =
      info_with(flux_policy(), {pod_set("node", std::nullopt, 1, {"node", "sidecar"}, {"setup"})});
  info.template_spec.pod_sets[0].volumes =
      arr(R"([{"name":"flux-install","hostPath":{"path":"/x"}},{"name":"data","emptyDir":{}}])");
  info.template_spec.pod_sets[0].containers[0].volume_mounts =
      arr(R"([{"name":"old","mountPath":"/dev/shm"}])");
  auto job = train_job();
  trainer_of(job).num_nodes = 1;
  trainer_of(job).command = std::vector<std::string>{"  mpirun  "};
  REQUIRE(enforce(info, job));
  const auto& ps = info.template_spec.pod_sets[0];
  CHECK(ps.volumes.size() == 6);
  CHECK(ps.volumes[0] == json::value(obj(R"({"name":"flux-install","emptyDir":{}})")));
  CHECK(ps.volumes[1] == json::value(obj(R"({"name":"data","emptyDir":{}})")));
  CHECK(ps.init_containers.size() == 2);
  CHECK(ps.init_containers[1].name == "flux-installer");
  CHECK(ps.containers[0].volume_mounts.size() == 5);
  CHECK(ps.containers[0].volume_mounts[0] ==
        json::value(obj(R"({"name":"shared-memory","mountPath":"/dev/shm","readOnly":true})")));
  CHECK(ps.containers[1].volume_mounts.empty());
  // No trainer-ancestor PodSet: the original command comes from the TrainJob only, trimmed.
  CHECK((*job.spec.trainer->command)[2] == "mpirun");
}

TEST_CASE("Flux: original command", "[flux]") {
  auto info = info_with(flux_policy(), {trainer_pod_set()});
  info.template_spec.pod_sets[0].containers[0].command = {"lmp", "-in", "in.reaxc"};
  auto job = train_job();
  CHECK(detail::flux_original_command(info, job) == "lmp -in in.reaxc");
  trainer_of(job).args = std::vector<std::string>{"-v", "x"};
  CHECK(detail::flux_original_command(info, job) == "lmp -in in.reaxc -v x");
  trainer_of(job).command = std::vector<std::string>{"python"};
  trainer_of(job).args = std::vector<std::string>{"train.py", "--epochs", "10"};
  CHECK(detail::flux_original_command(info, job) == "python train.py --epochs 10");
  trainer_of(job).command = std::vector<std::string>{"  python  "};
  trainer_of(job).args = std::vector<std::string>{" script.py "};
  CHECK(detail::flux_original_command(info, job) == "python    script.py");
  trainer_of(job).command = std::vector<std::string>{};
  trainer_of(job).args.reset();
  CHECK(detail::flux_original_command(info, job).empty());
}

TEST_CASE("Flux: broker settings precedence", "[flux]") {
  auto info = info_with(flux_policy(), {trainer_pod_set()});
  auto job = train_job();
  auto settings = detail::flux_broker_settings(info, job);
  CHECK(settings ==
        detail::FluxSettings{
            {"FLUX_NETWORK_DEVICE", "eth0"},
            {"FLUX_QUEUE_POLICY", "fcfs"},
            {"FLUX_VIEW_IMAGE", "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy"}});
  info.template_spec.pod_sets[0].containers[0].env = arr(R"([
    {"name":"FLUX_VIEW_IMAGE","value":"example.com/flux-view:rocky"},
    {"name":"FLUX_NETWORK_DEVICE","value":"ens5"},
    {"name":"FLUX_QUEUE_POLICY","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},
    {"name":"UNRELATED","value":"x"}])");
  trainer_of(job).env = {obj(R"({"name":"FLUX_NETWORK_DEVICE","value":"ib0"})"),
                         obj(R"({"name":"FLUX_QUEUE_POLICY","value":"easy"})")};
  settings = detail::flux_broker_settings(info, job);
  CHECK(settings.at("FLUX_VIEW_IMAGE") == "example.com/flux-view:rocky");
  CHECK(settings.at("FLUX_NETWORK_DEVICE") == "ib0");
  CHECK(settings.at("FLUX_QUEUE_POLICY") == "easy");
  CHECK(settings.count("UNRELATED") == 0);
  // A TrainJob entry without a literal value sets the setting to "" (Go's zero value).
  trainer_of(job).env = {
      obj(R"({"name":"FLUX_QUEUE_POLICY","valueFrom":{"fieldRef":{"fieldPath":"x"}}})")};
  CHECK(detail::flux_broker_settings(info, job).at("FLUX_QUEUE_POLICY").empty());

  // The installer image follows the settings.
  trainer_of(job).num_nodes = 1;
  trainer_of(job).env = {obj(R"({"name":"FLUX_VIEW_IMAGE","value":"mine:1"})")};
  REQUIRE(enforce(info, job));
  CHECK(info.template_spec.pod_sets[0].init_containers[0].image == "mine:1");
}

TEST_CASE("Flux: ranges and host lists", "[flux]") {
  CHECK(detail::flux_range(1, 0) == "0");
  CHECK(detail::flux_range(4, 0) == "0-3");
  CHECK(detail::flux_range(3, 10) == "10-12");
  CHECK(detail::flux_range(0, 0) == "0--1");
  CHECK(detail::flux_hostlist("lammps-job", 1) == "lammps-job-node-0-[0]");
  CHECK(detail::flux_hostlist("flux-cluster", 4) == "flux-cluster-node-0-[0-3]");
  CHECK(detail::flux_hostlist("", 2) == "-node-0-[0-1]");
}

TEST_CASE("Flux: scripts match upstream's rendering byte for byte", "[flux]") {
  const auto defaults = detail::flux_broker_settings(trainer::Info{}, train_job());
  CHECK(detail::flux_init_script("test-job", "default", 2, defaults) ==
        read_data("test-job-init.sh"));
  CHECK(detail::flux_entrypoint_script("test-job", 1, 2, 0) == read_data("test-job-entrypoint.sh"));
  auto custom = defaults;
  custom["FLUX_NETWORK_DEVICE"] = "ens5";
  custom["FLUX_QUEUE_POLICY"] = "easy";
  CHECK(detail::flux_init_script("lammps", "team-a", 1, custom) == read_data("lammps-init.sh"));
  CHECK(detail::flux_entrypoint_script("lammps", 4, 1, 2) == read_data("lammps-entrypoint.sh"));
}

TEST_CASE("Flux: script parameters", "[flux]") {
  const auto init = detail::flux_init_script(
      "job", "ns", 3, detail::flux_broker_settings(trainer::Info{}, train_job()));
  CHECK(init.find("fluxroot=/opt/view\nmainHost=job-0\n") != std::string::npos);
  CHECK(init.find("hosts=\"job-node-0-[0-2]\"\n") != std::string::npos);
  CHECK(init.find("default_bind = \"tcp://eth0:%p\"\n") != std::string::npos);
  CHECK(init.find("default_connect = \"tcp://%h.job.ns.svc.cluster.local:%p\"\n") !=
        std::string::npos);
  CHECK(init.find("{ host=\"job-node-0-[0-2]\"},\n") != std::string::npos);
  CHECK(init.find("queue-policy = \"fcfs\"\n\nEOT\n") != std::string::npos);
  const auto entry = detail::flux_entrypoint_script("job", 2, 3, 4);
  CHECK(entry.find("flux R encode --hosts=${hosts} --cores=0-1 --gpu=0-3 > /tmp/R\n") !=
        std::string::npos);
  CHECK(entry.find("mainHost=\"job-node-0-0\"\n") != std::string::npos);
  CHECK(entry.find("flags=\"-N 3 -n 6 -g 4  \"\n") != std::string::npos);
  CHECK(entry.find("\n\tflux start  -o --config ${cfg} ${brokerOptions} flux run ${flags} "
                   "${command}\n") != std::string::npos);
  const auto cpu = detail::flux_entrypoint_script("job", 1, 1, 0);
  CHECK(cpu.find("--hosts=${hosts} --cores=0 > /tmp/R\n") != std::string::npos);
  CHECK(cpu.find("flags=\"-N 1 -n 1  \"\n") != std::string::npos);
}

TEST_CASE("Flux: Z85 and base64", "[flux]") {
  CHECK(detail::z85_encode(std::string(4, '\0')) == "00000");
  CHECK(detail::z85_encode(std::string(32, '\0')).size() == 40);
  CHECK(detail::z85_encode("\x01\x02\x03").empty());
  // The ZeroMQ RFC 32 test vector.
  CHECK(detail::z85_encode("\x86\x4F\xD2\x6F\xB5\x59\xF7\x5B") == "HelloWorld");
  CHECK(detail::z85_encode("\xFF\xFF\xFF\xFF") == "%nSc0");
  CHECK(trainer::base64_encode("") == "");
  CHECK(trainer::base64_encode("f") == "Zg==");
  CHECK(trainer::base64_encode("fo") == "Zm8=");
  CHECK(trainer::base64_encode("foo") == "Zm9v");
  CHECK(trainer::base64_encode("foobar") == "Zm9vYmFy");
}

TEST_CASE("Flux: CURVE keys are deterministic and consistent", "[flux]") {
  auto keys = detail::flux_curve_key_pair("12345-67890");
  REQUIRE(keys);
  CHECK(keys->secret_key.size() == 32);
  CHECK(keys->public_key.size() == 32);
  // Cross-checked with Python's `cryptography` X25519 over SHA-256("12345-67890").
  CHECK(detail::z85_encode(keys->public_key) == "=5tz+^nr>fsG0r)APsh9&*hw22n>C@sC.y{pn0q=");
  CHECK(detail::z85_encode(keys->secret_key) == "9v+V-VmP1<i#7s}ZY#SyyUlHmlYNsC{u@t=@rKRv");
  // The public key is the X25519 public half of the private key.
  auto pub = detail::x25519_public_key(keys->secret_key);
  REQUIRE(pub);
  CHECK(*pub == keys->public_key);
  CHECK_FALSE(detail::x25519_public_key("short"));

  auto again = detail::flux_curve_key_pair("12345-67890");
  REQUIRE(again);
  CHECK(again->public_key == keys->public_key);
  auto other = detail::flux_curve_key_pair("different-uid");
  REQUIRE(other);
  CHECK(other->public_key != keys->public_key);
  CHECK(other->secret_key != keys->secret_key);

  const auto cert = detail::flux_curve_cert("test-job", *keys);
  CHECK(cert ==
        "#  ZeroMQ CURVE Secret Certificate\n"
        "#  Generated by Kubeflow Trainer\n\n"
        "metadata\n"
        "    name = \"test-job\"\n"
        "curve\n"
        "    public-key = \"=5tz+^nr>fsG0r)APsh9&*hw22n>C@sC.y{pn0q=\"\n"
        "    secret-key = \"9v+V-VmP1<i#7s}ZY#SyyUlHmlYNsC{u@t=@rKRv\"\n");
  for (const auto& key :
       {detail::z85_encode(keys->public_key), detail::z85_encode(keys->secret_key)}) {
    CHECK(key.size() == 40);
    CHECK(key.find_first_not_of(kZ85Alphabet) == std::string::npos);
  }
}

TEST_CASE("Flux: Build returns the entrypoint ConfigMap and the curve Secret", "[flux]") {
  auto info = info_with(flux_policy(1), {trainer_pod_set()});
  auto job = train_job("test-job", "default");
  trainer_of(job).num_nodes = 2;
  REQUIRE(enforce(info, job));
  auto objects = build(info, job, "12345-67890");
  REQUIRE(objects);
  REQUIRE(objects->size() == 2);
  const auto owner = obj(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
    "name":"test-job","uid":"12345-67890","controller":true,"blockOwnerDeletion":true})");

  const auto& cm = (*objects)[0].as_object();
  CHECK(cm.at("apiVersion") == "v1");
  CHECK(cm.at("kind") == "ConfigMap");
  CHECK(cm.at("metadata") == json::value(json::object{{"name", "test-job-flux-entrypoint"},
                                                      {"namespace", "default"},
                                                      {"ownerReferences", json::array{owner}}}));
  CHECK(cm.at("data").as_object().size() == 2);
  CHECK(cm.at("data").at("init.sh").as_string() == read_data("test-job-init.sh"));
  CHECK(cm.at("data").at("entrypoint.sh").as_string() == read_data("test-job-entrypoint.sh"));

  const auto& secret = (*objects)[1].as_object();
  CHECK(secret.at("apiVersion") == "v1");
  CHECK(secret.at("kind") == "Secret");
  CHECK(secret.if_contains("type") == nullptr);
  CHECK(secret.at("metadata").at("name") == "test-job-flux-curve");
  CHECK(secret.at("metadata").at("ownerReferences") == json::value(json::array{owner}));
  const auto cert = trainer::base64_decode(secret.at("data").at("curve.cert").as_string()).value();
  CHECK(cert.find("    public-key = \"=5tz+^nr>fsG0r)APsh9&*hw22n>C@sC.y{pn0q=\"\n") !=
        std::string::npos);
  CHECK(cert.find("    name = \"test-job\"\n") != std::string::npos);

  // The same UID gives the same objects.
  auto again = build(info, job, "12345-67890");
  REQUIRE(again);
  CHECK(*again == *objects);
}

TEST_CASE("Flux: Build derives tasks and GPUs", "[flux]") {
  auto info = info_with(flux_policy(3), {trainer_pod_set()},
                        trainer_jobset_spec(R"({"limits":{"nvidia.com/gpu":"2"}})"));
  auto job = train_job("lammps", "team-a");
  trainer_of(job).num_nodes = 1;
  auto entry = [&] {
    auto objects = build(info, job);
    REQUIRE(objects);
    return std::string((*objects)[0].at("data").at("entrypoint.sh").as_string());
  };
  // flux.numProcPerNode, runtime GPUs.
  CHECK(entry().find("flags=\"-N 1 -n 3 -g 2  \"") != std::string::npos);
  // trainer.numProcPerNode wins; TrainJob resources alone decide the GPUs.
  trainer_of(job).num_proc_per_node = 4;
  trainer_of(job).resources_per_node = obj(R"({"requests":{"cpu":"4"}})");
  CHECK(entry().find("flags=\"-N 1 -n 4  \"") != std::string::npos);
  trainer_of(job).resources_per_node = obj(R"({"limits":{"nvidia.com/gpu":"2"}})");
  trainer_of(job).env = {obj(R"({"name":"FLUX_NETWORK_DEVICE","value":"ens5"})"),
                         obj(R"({"name":"FLUX_QUEUE_POLICY","value":"easy"})")};
  auto objects = build(info, job);
  REQUIRE(objects);
  CHECK((*objects)[0].at("data").at("entrypoint.sh").as_string() ==
        read_data("lammps-entrypoint.sh"));
  CHECK((*objects)[0].at("data").at("init.sh").as_string() == read_data("lammps-init.sh"));
}

TEST_CASE("Flux: spec.trainer.numNodes is required (upstream panics)", "[flux]") {
  auto info = info_with(flux_policy(), {trainer_pod_set()});
  for (bool with_trainer : {false, true}) {
    auto job = train_job();
    if (with_trainer) trainer_of(job).image = "x";
    const auto result = validate(info, job);
    REQUIRE(result.errors.size() == 1);
    CHECK(result.errors[0].type == trainer::FieldErrorType::kRequired);
    CHECK(result.errors[0].path == "spec.trainer.numNodes");
    CHECK(result.errors[0].detail == "must be set when the runtime has a Flux policy");
    auto enforced = enforce(info, job);
    REQUIRE_FALSE(enforced);
    CHECK(enforced.error().code == trainer::ErrorCode::kInvalid);
    REQUIRE(enforced.error().fields.size() == 1);
    CHECK(enforced.error().fields[0] == result.errors[0]);
    CHECK(info.template_spec.pod_sets[0].init_containers.empty());
    auto built = build(info, job);
    REQUIRE_FALSE(built);
    CHECK(built.error().fields == result.errors);
  }
}

TEST_CASE("Flux validation: flux-installer is reserved", "[flux]") {
  auto info =
      info_with(flux_policy(), {pod_set("node", "trainer", 1, {"node"}, {"flux-installer"}),
                                pod_set("other", std::nullopt, 1, {"node"}, {"flux-installer"})});
  auto job = train_job();
  trainer_of(job).num_nodes = 1;
  const auto result = validate(info, job);
  REQUIRE(result.errors.size() == 1);
  CHECK(result.errors[0].type == trainer::FieldErrorType::kInvalid);
  CHECK(result.errors[0].path == "spec.trainer.initContainers");
  CHECK(result.errors[0].value == json::value("flux-installer"));
  CHECK(result.errors[0].detail == "InitContainer 'flux-installer' is reserved");

  info.template_spec.pod_sets[0].init_containers[0].name = "setup";
  CHECK(validate(info, job).errors.empty());
}
