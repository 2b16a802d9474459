// SPDX-License-Identifier: Apache-2.0
//
// What Training Operator v1's webhooks refuse is refused with the v1 field path; unknown fields
// are warned about, never dropped silently; convert_documents replaces convertible documents
// in place and keeps the others.
#include <catch2/catch.hpp>

#include "convert_test_support.hpp"

namespace {

namespace json = boost::json;
using namespace convert_test;

json::value yaml(const std::string& text) {
  auto docs = trainer::parse_documents(text);
  REQUIRE(docs.has_value());
  REQUIRE(docs->size() == 1);
  return docs->front();
}

std::vector<std::string> field_errors(const trainer::Result<trainer::convert::Conversion>& r) {
  std::vector<std::string> out;
  if (!r) {
    for (const auto& f : r.error().fields) out.push_back(f.to_string());
  }
  return out;
}

}  // namespace

TEST_CASE("v1 webhook refusals name the v1 field path", "[convert]") {
  SECTION("PyTorchJob Master replicas must be set to 1") {
    auto r = trainer::convert::convert_job(yaml(R"(
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: p}
spec:
  pytorchReplicaSpecs:
    Master: {template: {spec: {containers: [{name: pytorch, image: i}]}}}
)"));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == trainer::ErrorCode::kInvalid);
    CHECK(field_errors(r) ==
          std::vector<std::string>{"spec.pytorchReplicaSpecs[Master].replicas: Forbidden: must "
                                   "be 1 (the v1 webhook requires it set explicitly)"});
  }
  SECTION("a replica without the default container, a container without image") {
    auto r = trainer::convert::convert_job(yaml(R"(
apiVersion: kubeflow.org/v1
kind: JAXJob
metadata: {name: j}
spec:
  jaxReplicaSpecs:
    Worker: {template: {spec: {containers: [{name: main}]}}}
)"));
    CHECK(field_errors(r) ==
          std::vector<std::string>{
              "spec.jaxReplicaSpecs[Worker].template.spec.containers[0].image: Required value: "
              "must be required",
              "spec.jaxReplicaSpecs[Worker].template.spec.containers: Required value: There is "
              "no container named jax in spec.jaxReplicaSpecs[Worker]"});
  }
  SECTION("a replica type the kind does not have; a name that is not DNS-1035") {
    auto r = trainer::convert::convert_job(yaml(R"(
apiVersion: kubeflow.org/v1
kind: XGBoostJob
metadata: {name: 1x}
spec:
  xgbReplicaSpecs:
    Chief: {template: {spec: {containers: [{name: xgboost, image: i}]}}}
)"));
    const auto errors = field_errors(r);
    REQUIRE(errors.size() == 2);
    CHECK(errors[0].rfind("metadata.name: Invalid value: \"1x\": ", 0) == 0);
    CHECK(
        errors[1] ==
        R"(spec.xgbReplicaSpecs[Chief]: Unsupported value: "Chief": supported values: "Master", "Worker")");
  }
  SECTION("TFJob with both Chief and Master") {
    auto r = trainer::convert::convert_job(yaml(R"(
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: t}
spec:
  tfReplicaSpecs:
    Chief: {template: {spec: {containers: [{name: tensorflow, image: i}]}}}
    Master: {template: {spec: {containers: [{name: tensorflow, image: i}]}}}
)"));
    CHECK(field_errors(r) == std::vector<std::string>{"spec.tfReplicaSpecs: Forbidden: must not "
                                                      "have more than 1 Chief/Master replica"});
  }
  SECTION("managedBy outside v1's list") {
    auto r = trainer::convert::convert_job(yaml(R"(
apiVersion: kubeflow.org/v1
kind: JAXJob
metadata: {name: j}
spec:
  runPolicy: {managedBy: example.com/other}
  jaxReplicaSpecs:
    Worker: {template: {spec: {containers: [{name: jax, image: i}]}}}
)"));
    const auto errors = field_errors(r);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].rfind(R"(spec.runPolicy.managedBy: Unsupported value: "example.com/other")",
                          0) == 0);
  }
  SECTION("MPIJob without a Launcher") {
    auto r = trainer::convert::convert_job(yaml(R"(
apiVersion: kubeflow.org/v1
kind: MPIJob
metadata: {name: m}
spec:
  mpiReplicaSpecs:
    Worker: {replicas: 1, template: {spec: {containers: [{name: mpi, image: i}]}}}
)"));
    CHECK(field_errors(r) ==
          std::vector<std::string>{
              "spec.mpiReplicaSpecs[Launcher]: Required value: must be present"});
  }
}

TEST_CASE("unknown and unmapped fields are warned with their path; strict refuses them",
          "[convert]") {
  const auto job = yaml(R"(
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: t, namespace: team}
spec:
  enableDynamicWorker: true
  futureField: 1
  runPolicy:
    ttlSecondsAfterFinished: 60
    suspend: true
    schedulingPolicy: {minAvailable: 1, minResources: {cpu: "2"}, scheduleTimeoutSeconds: 30}
  tfReplicaSpecs:
    Worker:
      replicas: 2
      template: {spec: {restartPolicy: Always, containers: [{name: tensorflow, image: i}]}}
)");
  auto c = trainer::convert::convert_job(job);
  REQUIRE(c.has_value());
  CHECK(c->warnings ==
        std::vector<std::string>{
            "TFJob team/t: spec.enableDynamicWorker: true keeps v1's sparse TF_CONFIG, but "
            "Trainer v2 has no dynamic workers: a failed Worker fails the job",
            "TFJob team/t: spec.futureField: 1 is not a known v1 field; it is dropped",
            "TFJob team/t: spec.runPolicy.schedulingPolicy.minAvailable: 1 has no Trainer v2 "
            "equivalent; the PodGroup's minMember is every pod (2)",
            "TFJob team/t: spec.runPolicy.schedulingPolicy.minResources: {\"cpu\":\"2\"} has no "
            "Trainer v2 equivalent; the PodGroup's minResources is the sum of the pods' requests",
            "TFJob team/t: spec.tfReplicaSpecs[Worker].template.spec.restartPolicy: \"Always\" is "
            "replaced by the replica's restartPolicy Never, as Training Operator v1 did"});
  const auto& rt = c->objects[0].at("spec");
  CHECK(rt.at("podGroupPolicy").at("coscheduling").at("scheduleTimeoutSeconds") == 30);
  CHECK(rt.at("template").at("spec").at("ttlSecondsAfterFinished") == 60);
  CHECK(c->objects[1].at("spec").at("suspend") == true);
  CHECK(c->objects[1].at("metadata").at("namespace") == "team");
  const auto& env = c->objects[0]
                        .at("spec")
                        .at("template")
                        .at("spec")
                        .at("replicatedJobs")
                        .at(0)
                        .at("template")
                        .at("spec")
                        .at("template")
                        .at("spec")
                        .at("containers")
                        .at(0)
                        .at("env");
  CHECK(env.at(1).at("value") ==
        R"x({"cluster":{"worker":{"$(V1_REPLICA_INDEX)":"t-worker-0-$(V1_REPLICA_INDEX).t:2222"},)x"
        R"x("ps":null},"task":{"type":"worker","index":$(V1_REPLICA_INDEX)}})x");

  trainer::convert::Options strict;
  strict.strict = true;
  auto refused = trainer::convert::convert_job(job, strict);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == trainer::ErrorCode::kInvalid);
  CHECK(refused.error().fields.size() == 5);
  CHECK(refused.error().fields[1].to_string() ==
        "spec.futureField: Invalid value: 1: is not a known v1 field; it is dropped");
}

TEST_CASE("convert_documents replaces convertible documents in place", "[convert]") {
  std::vector<json::value> docs;
  docs.push_back(json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap",
      "metadata": {"name": "before"}})"));
  docs.push_back(fixture("jax.yaml"));
  docs.push_back(json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap",
      "metadata": {"name": "after"}})"));
  std::vector<std::string> warnings;
  trainer::convert::Options options;
  options.namespace_ = "ml";
  auto out = trainer::convert::convert_documents(
      std::move(docs), options, [&](std::string_view w) { warnings.emplace_back(w); });
  REQUIRE(out.has_value());
  REQUIRE(out->size() == 4);
  CHECK((*out)[0].at("metadata").at("name") == "before");
  CHECK((*out)[1].at("kind") == "TrainingRuntime");
  CHECK((*out)[1].at("metadata").at("namespace") == "ml");
  CHECK((*out)[2].at("kind") == "TrainJob");
  CHECK((*out)[3].at("metadata").at("name") == "after");
  CHECK(warnings.empty());

  CHECK(trainer::convert::is_convertible("kubeflow.org/v1", "PaddleJob"));
  CHECK_FALSE(trainer::convert::is_convertible("kubeflow.org/v1", "TrainJob"));
  CHECK_FALSE(trainer::convert::is_convertible("kubeflow.org/v2beta1", "MPIJob"));
  auto other = trainer::convert::convert_job(json::parse(R"({"apiVersion": "kubeflow.org/v2beta1",
      "kind": "MPIJob"})"));
  REQUIRE_FALSE(other.has_value());
  CHECK(other.error().code == trainer::ErrorCode::kUnsupported);
}

TEST_CASE("malformed v1 jobs are refused with a field path, never a crash", "[convert]") {
  const char* bodies[] = {
      R"({"spec": 1})",
      R"({"spec": {"pytorchReplicaSpecs": []}})",
      R"({"spec": {"pytorchReplicaSpecs": {"Worker": 1}}})",
      R"({"spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": "two"}}}})",
      R"({"spec": {"pytorchReplicaSpecs": {"Worker": {"template": {"spec": {"containers": {}}}}}}})",
      R"({"spec": {"pytorchReplicaSpecs": {"Worker": {"template": {"spec": {"containers": [1]}}}}}})",
      R"({"spec": {"runPolicy": [], "pytorchReplicaSpecs": {"Worker": {"template": {"spec":
          {"containers": [{"name": "pytorch", "image": "i"}]}}}}}})",
      R"({"spec": {"elasticPolicy": "yes", "pytorchReplicaSpecs": {"Worker": {"template":
          {"spec": {"containers": [{"name": "pytorch", "image": "i"}]}}}}}})",
      R"({"spec": {"runPolicy": {"schedulingPolicy": 3}, "pytorchReplicaSpecs": {"Worker":
          {"template": {"spec": {"containers": [{"name": "pytorch", "image": "i"}]}}}}}})",
  };
  for (const char* body : bodies) {
    auto job = json::parse(body);
    job.as_object()["apiVersion"] = "kubeflow.org/v1";
    job.as_object()["kind"] = "PyTorchJob";
    job.as_object()["metadata"] = json::object{{"name", "p"}};
    INFO(body);
    auto r = trainer::convert::convert_job(job);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == trainer::ErrorCode::kInvalid);
    REQUIRE_FALSE(r.error().fields.empty());
    CHECK(r.error().fields[0].path.rfind("spec", 0) == 0);
  }
}

TEST_CASE("pod and process counts out of range are refused with the v1 path", "[convert]") {
  // Issue 19: `replicas: 9223372036854775807` converted (strict too) to numNodes
  // -9223372036854775808, a signed overflow.
  auto pytorch = [](const std::string& worker_replicas, const std::string& extra = "") {
    return yaml(R"(
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: p}
spec:
)" + extra + R"(
  pytorchReplicaSpecs:
    Master: {replicas: 1, template: {spec: {containers: [{name: pytorch, image: i}]}}}
    Worker:
      replicas: )" +
                worker_replicas + R"(
      template: {spec: {containers: [{name: pytorch, image: i}]}}
)");
  };
  const std::string path = "spec.pytorchReplicaSpecs[Worker].replicas";
  for (bool strict : {false, true}) {
    trainer::convert::Options options;
    options.strict = strict;
    CHECK(field_errors(trainer::convert::convert_job(pytorch("9223372036854775807"), options)) ==
          std::vector<std::string>{
              path + ": Invalid value: 9223372036854775807: must be no more than 100000"});
  }
  CHECK(field_errors(trainer::convert::convert_job(pytorch("18446744073709551615"))) ==
        std::vector<std::string>{
            path + ": Invalid value: 18446744073709551615: must be no more than 100000"});
  CHECK(
      field_errors(trainer::convert::convert_job(pytorch("2147483648"))) ==
      std::vector<std::string>{path + ": Invalid value: 2147483648: must be no more than 100000"});
  CHECK(field_errors(trainer::convert::convert_job(pytorch("100000"))) ==
        std::vector<std::string>{
            "spec.pytorchReplicaSpecs: Invalid value: 100001: the replicas add up to 100001 pods; "
            "a TrainJob may have no more than 100000"});
  CHECK(field_errors(trainer::convert::convert_job(pytorch("-1"))) ==
        std::vector<std::string>{path + ": Invalid value: -1: must be greater than or equal to 0"});
  CHECK(field_errors(trainer::convert::convert_job(pytorch("1.5"))) ==
        std::vector<std::string>{path + ": Invalid value: 1.5: must be an integer"});

  // nprocPerNode multiplies into WORLD_SIZE.
  const std::string nproc = "spec.nprocPerNode: Invalid value: ";
  const std::string nproc_detail = ": must be auto, cpu, gpu or an integer from 1 to 100000";
  for (const std::string bad : {"9223372036854775807", "99999999999999999999", "-2", "0"}) {
    CHECK(field_errors(trainer::convert::convert_job(
              pytorch("99999", "  nprocPerNode: \"" + bad + "\"\n"))) ==
          std::vector<std::string>{nproc + "\"" + bad + "\"" + nproc_detail});
  }
  auto ok = trainer::convert::convert_job(pytorch("99999", "  nprocPerNode: \"100000\"\n"));
  INFO((ok ? std::string() : text(ok.error())));
  REQUIRE(ok.has_value());
  CHECK(ok->objects.back().at("spec").at("trainer").at("numProcPerNode") == 100000);
  CHECK(field_errors(trainer::convert::convert_job(
            pytorch("1", "  elasticPolicy: {nProcPerNode: 2147483648}\n"))) ==
        std::vector<std::string>{"spec.elasticPolicy.nProcPerNode: Invalid value: 2147483648: "
                                 "must be no more than 100000"});

  // The sum over replica types, with no single count out of range.
  CHECK(field_errors(trainer::convert::convert_job(yaml(R"(
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: t}
spec:
  tfReplicaSpecs:
    PS: {replicas: 60000, template: {spec: {containers: [{name: tensorflow, image: i}]}}}
    Worker: {replicas: 60000, template: {spec: {containers: [{name: tensorflow, image: i}]}}}
)"))) == std::vector<std::string>{"spec.tfReplicaSpecs: Invalid value: 120000: the replicas add "
                                  "up to 120000 pods; a TrainJob may have no more than 100000"});

  // MPIJob slotsPerWorker is the runtime's numProcPerNode (1 or more).
  auto mpi = [](const std::string& slots) {
    return yaml(R"(
apiVersion: kubeflow.org/v1
kind: MPIJob
metadata: {name: m}
spec:
  slotsPerWorker: )" +
                slots + R"(
  mpiReplicaSpecs:
    Launcher: {replicas: 1, template: {spec: {containers: [{name: l, image: i, command: [mpirun]}]}}}
    Worker: {replicas: 2, template: {spec: {containers: [{name: w, image: i, command: [sshd]}]}}}
)");
  };
  CHECK(field_errors(trainer::convert::convert_job(mpi("9223372036854775807"))) ==
        std::vector<std::string>{"spec.slotsPerWorker: Invalid value: 9223372036854775807: must "
                                 "be no more than 100000"});
  CHECK(field_errors(trainer::convert::convert_job(mpi("0"))) ==
        std::vector<std::string>{
            "spec.slotsPerWorker: Invalid value: 0: must be greater than or equal to 1"});
  auto slots = trainer::convert::convert_job(mpi("8"));
  REQUIRE(slots.has_value());
  CHECK(slots->objects.front().at("spec").at("mlPolicy").at("mpi").at("numProcPerNode") == 8);
}
