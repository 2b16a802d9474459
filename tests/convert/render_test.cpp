// SPDX-License-Identifier: Apache-2.0
//
// Every fixture of tests/convert/data converts to a TrainingRuntime `<job>-v1` and a TrainJob
// that pass admission and render, and the rendered JobSet's pods carry the env contract the
// Training Operator v1 controller injected, on JobSet pod addresses.
#include <catch2/catch.hpp>

#include "convert_test_support.hpp"

namespace {

namespace json = boost::json;
using namespace convert_test;
constexpr const char* kIndexRef =
    "<metadata.annotations['batch.kubernetes.io/job-completion-index']>";
constexpr const char* kGlobalIndexRef =
    "<metadata.annotations['jobset.sigs.k8s.io/job-global-index']>";

}  // namespace

TEST_CASE("TFJob PS+Worker: one replicatedJob per type, TF_CONFIG on JobSet addresses",
          "[convert]") {
  auto c = trainer::convert::convert_job(fixture("tfjob-mnist-ps.yaml"));
  REQUIRE(c.has_value());
  INFO(lines(c->warnings));
  CHECK(c->warnings.empty());
  REQUIRE(c->objects.size() == 2);
  CHECK(c->objects[0].at("kind") == "TrainingRuntime");
  CHECK(c->objects[0].at("metadata").at("name") == "mnist-v1");
  CHECK(c->objects[1].at("kind") == "TrainJob");
  CHECK(c->objects[1].at("metadata").at("labels").at("team") == "vision");
  auto out = render(*c);
  INFO((out ? lines(out->warnings) : text(out.error())));
  REQUIRE(out.has_value());
  const auto* js = jobset(*out);
  REQUIRE(js != nullptr);
  const auto* ps = replicated_job(*js, "ps");
  const auto* worker = replicated_job(*js, "worker");
  REQUIRE(ps != nullptr);
  REQUIRE(worker != nullptr);
  CHECK(worker->at("template").at("spec").at("parallelism") == 2);
  CHECK(pod_spec(*worker).at("restartPolicy") == "Never");
  const auto* tf = container(*worker, "tensorflow");
  REQUIRE(tf != nullptr);
  CHECK(env_index(*tf, "V1_REPLICA_INDEX") == 0);
  CHECK(env(*tf, "V1_REPLICA_INDEX") == kIndexRef);
  CHECK(env(*tf, "TF_CONFIG") ==
        R"({"cluster":{"ps":["mnist-ps-0-0.mnist:2222"],"worker":["mnist-worker-0-0.mnist:2222",)"
        R"("mnist-worker-0-1.mnist:2222"]},"task":{"type":"worker","index":$(V1_REPLICA_INDEX)},)"
        R"("environment":"cloud"})");
  CHECK(env(*container(*ps, "tensorflow"), "TF_CONFIG").find(R"("task":{"type":"ps",)") !=
        std::string::npos);
  // The default port, as v1's defaulting added it.
  CHECK(tf->at("ports").at(0).at("name") == "tfjob-port");
  CHECK(tf->at("ports").at(0).at("containerPort") == 2222);
  CHECK(js->at("spec").at("successPolicy").at("targetReplicatedJobs") == json::array{"worker"});
  // v1's default successPolicy: Worker 0 succeeding completes the job.
  CHECK(worker->at("template")
            .at("spec")
            .at("successPolicy")
            .at("rules")
            .at(0)
            .at("succeededIndexes") == "0");
}

TEST_CASE("PyTorchJob with one Master/Worker template: one node replicatedJob, pod fields kept",
          "[convert]") {
  auto c = trainer::convert::convert_job(fixture("pytorch-gpu.yaml"));
  REQUIRE(c.has_value());
  INFO(lines(c->warnings));
  REQUIRE(c->warnings.size() == 1);
  CHECK(c->warnings[0] ==
        R"(PyTorchJob default/pytorch-dist-mnist: spec.runPolicy.cleanPodPolicy: "All" has no )"
        "Trainer v2 equivalent; pods are kept until the TrainJob is deleted");
  CHECK(c->objects[1].at("spec").at("activeDeadlineSeconds") == 3600);
  auto out = render(*c);
  INFO((out ? lines(out->warnings) : text(out.error())));
  REQUIRE(out.has_value());
  const auto* js = jobset(*out);
  REQUIRE(js != nullptr);
  REQUIRE(js->at("spec").at("replicatedJobs").as_array().size() == 1);
  const auto* node = replicated_job(*js, "node");
  REQUIRE(node != nullptr);
  CHECK(node->at("template").at("spec").at("parallelism") == 2);
  CHECK(node->at("template").at("spec").at("backoffLimit") == 3);
  const auto& spec = pod_spec(*node);
  CHECK(spec.at("restartPolicy") == "OnFailure");
  CHECK(spec.at("nodeSelector").at("nvidia.com/gpu.present") == "true");
  CHECK(spec.at("tolerations").at(0).at("key") == "nvidia.com/gpu");
  CHECK(spec.at("affinity").at("nodeAffinity").is_object());
  CHECK(spec.at("volumes").at(0).at("emptyDir").at("medium") == "Memory");
  CHECK(spec.at("volumes").at(1).at("persistentVolumeClaim").at("claimName") == "mnist-data");
  const auto* pt = container(*node, "pytorch");
  REQUIRE(pt != nullptr);
  CHECK(pt->at("resources").at("limits").at("nvidia.com/gpu") == 1);
  CHECK(env_index(*pt, "V1_REPLICA_INDEX") == 0);
  CHECK(env(*pt, "PYTHONUNBUFFERED") == "1");
  CHECK(env(*pt, "MASTER_ADDR") == "pytorch-dist-mnist-node-0-0.pytorch-dist-mnist");
  CHECK(env(*pt, "PET_MASTER_ADDR") == "pytorch-dist-mnist-node-0-0.pytorch-dist-mnist");
  CHECK(env(*pt, "MASTER_PORT") == "23456");
  CHECK(env(*pt, "WORLD_SIZE") == "2");
  CHECK(env(*pt, "RANK") == "$(V1_REPLICA_INDEX)");
  CHECK(env(*pt, "PET_NODE_RANK") == "$(V1_REPLICA_INDEX)");
  CHECK(env(*pt, "PET_NPROC_PER_NODE") == "auto");
  CHECK(env(*pt, "PET_NNODES") == "2");
  const auto& annotations =
      node->at("template").at("spec").at("template").at("metadata").at("annotations");
  CHECK(annotations.at("sidecar.istio.io/inject") == "false");
  const auto& labels = node->at("template").at("spec").at("template").at("metadata").at("labels");
  CHECK(labels.at("training.kubeflow.org/job-name") == "pytorch-dist-mnist");
}

TEST_CASE("PyTorchJob elastic: PET_* rendezvous env, scaling and metrics warned", "[convert]") {
  auto c = trainer::convert::convert_job(fixture("pytorch-elastic.yaml"));
  REQUIRE(c.has_value());
  REQUIRE(c->warnings.size() == 2);
  CHECK(c->warnings[0].rfind("PyTorchJob default/elastic-example-imagenet: spec.elasticPolicy: ",
                             0) == 0);
  CHECK(c->warnings[1].rfind(
            "PyTorchJob default/elastic-example-imagenet: spec.elasticPolicy.metrics: ", 0) == 0);
  auto out = render(*c);
  INFO((out ? lines(out->warnings) : text(out.error())));
  REQUIRE(out.has_value());
  const auto* worker = replicated_job(*jobset(*out), "node");
  REQUIRE(worker != nullptr);
  const auto* pt = container(*worker, "pytorch");
  CHECK(env(*pt, "MASTER_ADDR") == "<unset>");
  CHECK(env(*pt, "PET_RDZV_ENDPOINT") ==
        "elastic-example-imagenet-node-0-0.elastic-example-imagenet:23456");
  CHECK(env(*pt, "PET_RDZV_BACKEND") == "c10d");
  CHECK(env(*pt, "PET_NNODES") == "1:3");
  CHECK(env(*pt, "PET_MAX_RESTARTS") == "100");
  CHECK(pt->at("resources").at("limits").at("nvidia.com/mig-1g.5gb") == 1);
  auto strict = trainer::convert::convert_job(fixture("pytorch-elastic.yaml"), {true, ""});
  REQUIRE_FALSE(strict.has_value());
  CHECK(strict.error().code == trainer::ErrorCode::kInvalid);
  REQUIRE(strict.error().fields.size() == 2);
  CHECK(strict.error().fields[0].path == "spec.elasticPolicy");
  CHECK(strict.error().fields[1].path == "spec.elasticPolicy.metrics");
}

TEST_CASE("PyTorchJob Volcano gang scheduling, different templates, ExitCode", "[convert]") {
  auto c = trainer::convert::convert_job(fixture("pytorch-volcano.yaml"));
  REQUIRE(c.has_value());
  INFO(lines(c->warnings));
  REQUIRE(c->warnings.size() == 1);
  CHECK(
      c->warnings[0].rfind(
          R"(PyTorchJob default/gang: spec.runPolicy.schedulingPolicy.priorityClass: "high-priority" )",
          0) == 0);
  const auto& rt = c->objects[0].at("spec");
  CHECK(rt.at("podGroupPolicy").at("volcano").is_object());
  CHECK(rt.at("template").at("metadata").at("annotations").at("scheduling.volcano.sh/queue-name") ==
        "research");
  auto out = render(*c);
  INFO((out ? lines(out->warnings) : text(out.error())));
  REQUIRE(out.has_value());
  const auto* js = jobset(*out);
  const auto* master = replicated_job(*js, "master");
  const auto* worker = replicated_job(*js, "worker");
  REQUIRE(master != nullptr);
  REQUIRE(worker != nullptr);
  CHECK(js->at("spec").at("successPolicy").at("targetReplicatedJobs") == json::array{"master"});
  CHECK(pod_spec(*worker).at("restartPolicy") == "Never");
  CHECK(pod_spec(*worker).at("schedulerName") == "volcano");
  const auto& rules = worker->at("template").at("spec").at("podFailurePolicy").at("rules");
  CHECK(rules.at(0).at("action") == "FailJob");
  CHECK(rules.at(0).at("onExitCodes").at("values").as_array().size() == 127);
  const auto* m = container(*master, "pytorch");
  const auto* w = container(*worker, "pytorch");
  CHECK(env(*m, "MASTER_ADDR") == "gang-master-0-0.gang");
  CHECK(env(*w, "MASTER_ADDR") == "gang-master-0-0.gang");
  CHECK(env(*m, "RANK") == "$(V1_REPLICA_INDEX)");
  CHECK(env(*w, "RANK") == kGlobalIndexRef);
  CHECK(env(*w, "WORLD_SIZE") == "3");
  CHECK(w->at("command") == json::array{"python3", "/opt/mnist/src/mnist.py", "--epochs=1"});
  // Each Worker its own Job: Worker i is JobSet's global Job i + 1, after the Master's.
  CHECK(worker->at("replicas") == 2);
  CHECK(worker->at("template").at("spec").at("parallelism") == 1);
  CHECK(worker->at("template").at("spec").at("completions") == 1);
  bool pod_group = false;
  for (const auto& o : out->objects) pod_group = pod_group || o.at("kind") == "PodGroup";
  CHECK(pod_group);
}

TEST_CASE("PyTorchJob with different templates: every pod has RANK, WORLD_SIZE, MASTER_* as env",
          "[convert]") {
  // Issue 19: the Worker's rank came from a shell prelude, so `$(RANK)` in its arguments stayed
  // literal; and runPolicy.ttlSecondsAfterFinished did not reach the JobSet.
  auto c = trainer::convert::convert_job(fixture("pytorch-resnet-ranks.yaml"));
  REQUIRE(c.has_value());
  INFO(lines(c->warnings));
  CHECK(c->warnings.empty());
  auto out = render(*c);
  INFO((out ? lines(out->warnings) : text(out.error())));
  REQUIRE(out.has_value());
  const auto* js = jobset(*out);
  REQUIRE(js != nullptr);
  CHECK(js->at("spec").at("ttlSecondsAfterFinished") == 600);
  const auto* master = replicated_job(*js, "master");
  const auto* worker = replicated_job(*js, "worker");
  REQUIRE(master != nullptr);
  REQUIRE(worker != nullptr);
  CHECK(master->at("replicas") == 1);
  CHECK(worker->at("replicas") == 2);
  CHECK(worker->at("template").at("spec").at("parallelism") == 1);
  const auto* m = container(*master, "pytorch");
  const auto* w = container(*worker, "pytorch");
  REQUIRE(m != nullptr);
  REQUIRE(w != nullptr);
  const std::string addr = "resnet-master-0-0.resnet";
  for (const auto* c1 : {m, w}) {
    CHECK(env(*c1, "WORLD_SIZE") == "3");
    CHECK(env(*c1, "MASTER_ADDR") == addr);
    CHECK(env(*c1, "MASTER_PORT") == "23456");
    CHECK(env(*c1, "PET_RDZV_ENDPOINT") == "resnet-worker-0-0.resnet:23456");
    // The variables the arguments expand are defined in the env (the kubelet expands only
    // those).
    CHECK(env_index(*c1, "RANK") >= 0);
    CHECK(c1->at("args").at(0) == "--node_rank=$(RANK)");
    CHECK(c1->at("command").at(0) == "sh");
  }
  CHECK(env(*m, "RANK") == "$(V1_REPLICA_INDEX)");
  CHECK(env(*m, "V1_REPLICA_INDEX") == kIndexRef);
  CHECK(env(*w, "RANK") == kGlobalIndexRef);
  CHECK(env(*w, "PET_NODE_RANK") == "$(RANK)");
  CHECK(env_index(*w, "RANK") < env_index(*w, "PET_NODE_RANK"));
  CHECK(env(*w, "V1_REPLICA_INDEX") == "<metadata.annotations['jobset.sigs.k8s.io/job-index']>");
}

TEST_CASE("PyTorchJob elastic with different templates: each warning once", "[convert]") {
  // Issue 19: the Master's and the Worker's env were each made with the elastic policy's
  // warnings, so every warning was printed twice.
  auto job = fixture("pytorch-resnet-ranks.yaml");
  auto& ep = job.at("spec").at("elasticPolicy").as_object();
  ep["minReplicas"] = 1;
  ep["maxReplicas"] = 3;
  ep["metrics"] = json::array{json::object{{"type", "Resource"}}};
  auto c = trainer::convert::convert_job(job);
  REQUIRE(c.has_value());
  INFO(lines(c->warnings));
  REQUIRE(c->warnings.size() == 2);
  CHECK(c->warnings[0].rfind("PyTorchJob default/resnet: spec.elasticPolicy: ", 0) == 0);
  CHECK(c->warnings[1].rfind("PyTorchJob default/resnet: spec.elasticPolicy.metrics: ", 0) == 0);
  trainer::convert::Options strict;
  strict.strict = true;
  auto refused = trainer::convert::convert_job(job, strict);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().fields.size() == 2);
}

TEST_CASE("XGBoostJob with different templates: the Workers' RANK is their global Job index",
          "[convert]") {
  auto job = fixture("xgboost.yaml");
  auto& worker_spec = job.at("spec").at("xgbReplicaSpecs").at("Worker").as_object();
  worker_spec["template"].as_object()["metadata"] = json::object{{"labels", {{"role", "w"}}}};
  auto c = trainer::convert::convert_job(job);
  REQUIRE(c.has_value());
  auto out = render(*c);
  INFO((out ? lines(out->warnings) : text(out.error())));
  REQUIRE(out.has_value());
  const auto* worker = replicated_job(*jobset(*out), "worker");
  REQUIRE(worker != nullptr);
  CHECK(worker->at("replicas") == 2);
  const auto* x = container(*worker, "xgboost");
  CHECK(env(*x, "RANK") == kGlobalIndexRef);
  CHECK(x->at("args").at(0) == "--job_type=Train");
  CHECK(env(*x, "WORKER_ADDRS") ==
        "xgboost-dist-iris-worker-0-0.xgboost-dist-iris,"
        "xgboost-dist-iris-worker-1-0.xgboost-dist-iris");
}

TEST_CASE("MPIJob: launcher and node replicatedJobs with mlPolicy.mpi", "[convert]") {
  auto c = trainer::convert::convert_job(fixture("mpijob.yaml"));
  REQUIRE(c.has_value());
  INFO(lines(c->warnings));
  REQUIRE(c->warnings.size() == 2);
  CHECK(c->warnings[0].rfind(
            "MPIJob default/tensorflow-mnist: spec.mpiReplicaSpecs[Worker].template.spec."
            "containers[0].command: null ",
            0) == 0);
  CHECK(c->warnings[1].rfind(
            R"(MPIJob default/tensorflow-mnist: spec.runPolicy.cleanPodPolicy: "Running" )", 0) ==
        0);
  CHECK(c->objects[0].at("spec").at("mlPolicy").at("mpi").at("numProcPerNode") == 1);
  auto out = render(*c);
  INFO((out ? lines(out->warnings) : text(out.error())));
  REQUIRE(out.has_value());
  const auto* js = jobset(*out);
  const auto* launcher = replicated_job(*js, "launcher");
  const auto* node = replicated_job(*js, "node");
  REQUIRE(launcher != nullptr);
  REQUIRE(node != nullptr);
  CHECK(node->at("template").at("spec").at("parallelism") == 2);
  const auto* l = container(*launcher, "node");
  REQUIRE(l != nullptr);
  CHECK(env(*l, "OMPI_MCA_orte_default_hostfile") == "/etc/mpi/hostfile");
  bool hostfile = false;
  for (const auto& o : out->objects) {
    if (o.at("kind") != "ConfigMap") continue;
    if (const auto* d = o.as_object().if_contains("data");
        d && d->as_object().contains("hostfile")) {
      hostfile = d->at("hostfile") ==
                 "tensorflow-mnist-node-0-0.tensorflow-mnist slots=1\n"
                 "tensorflow-mnist-node-0-1.tensorflow-mnist slots=1\n";
      INFO(d->at("hostfile"));
      CHECK(hostfile);
    }
  }
  CHECK(hostfile);
}

TEST_CASE("XGBoostJob: MASTER_*/WORKER_*/RANK", "[convert]") {
  auto c = trainer::convert::convert_job(fixture("xgboost.yaml"));
  REQUIRE(c.has_value());
  CHECK(c->warnings.empty());
  auto out = render(*c);
  INFO((out ? lines(out->warnings) : text(out.error())));
  REQUIRE(out.has_value());
  const auto* node = replicated_job(*jobset(*out), "node");
  REQUIRE(node != nullptr);
  const auto* x = container(*node, "xgboost");
  CHECK(env(*x, "MASTER_ADDR") == "xgboost-dist-iris-node-0-0.xgboost-dist-iris");
  CHECK(env(*x, "MASTER_PORT") == "9999");
  CHECK(env(*x, "WORLD_SIZE") == "3");
  CHECK(env(*x, "RANK") == "$(V1_REPLICA_INDEX)");
  CHECK(env(*x, "WORKER_PORT") == "9999");
  CHECK(
      env(*x, "WORKER_ADDRS") ==
      "xgboost-dist-iris-node-0-1.xgboost-dist-iris,xgboost-dist-iris-node-0-2.xgboost-dist-iris");
  CHECK(pod_spec(*node).at("restartPolicy") == "Never");
  CHECK(node->at("template").at("spec").at("backoffLimit") == 0);
}

TEST_CASE("JAXJob: COORDINATOR_*/NUM_PROCESSES/PROCESS_ID", "[convert]") {
  auto c = trainer::convert::convert_job(fixture("jax.yaml"));
  REQUIRE(c.has_value());
  CHECK(c->warnings.empty());
  auto out = render(*c);
  INFO((out ? lines(out->warnings) : text(out.error())));
  REQUIRE(out.has_value());
  const auto* w = container(*replicated_job(*jobset(*out), "node"), "jax");
  REQUIRE(w != nullptr);
  CHECK(env(*w, "COORDINATOR_ADDRESS") == "jaxjob-simple-node-0-0.jaxjob-simple");
  CHECK(env(*w, "COORDINATOR_PORT") == "6666");
  CHECK(env(*w, "NUM_PROCESSES") == "2");
  CHECK(env(*w, "PROCESS_ID") == "$(V1_REPLICA_INDEX)");
  CHECK(w->at("imagePullPolicy") == "Always");
}

TEST_CASE("PaddleJob collective: PADDLE_* with the user's master port", "[convert]") {
  auto c = trainer::convert::convert_job(fixture("paddle.yaml"));
  REQUIRE(c.has_value());
  CHECK(c->warnings.empty());
  auto out = render(*c);
  INFO((out ? lines(out->warnings) : text(out.error())));
  REQUIRE(out.has_value());
  const auto* w = container(*replicated_job(*jobset(*out), "worker"), "paddle");
  REQUIRE(w != nullptr);
  CHECK(env(*w, "PADDLE_MASTER") == "paddle-simple-gpu-worker-0-0.paddle-simple-gpu:37777");
  CHECK(env(*w, "PADDLE_NNODES") == "2");
  CHECK(env(*w, "PADDLE_JOB_ID") == "paddle-simple-gpu");
  CHECK(env(*w, "PADDLE_TRAINER_NUM") == "<unset>");
  CHECK(w->at("resources").at("limits").at("nvidia.com/gpu") == 2);
}

TEST_CASE("PyTorchJob that TrainJob fields express: the built-in torch-distributed runtime",
          "[convert]") {
  auto c = trainer::convert::convert_job(fixture("pytorch-simple.yaml"));
  REQUIRE(c.has_value());
  CHECK(c->warnings.empty());
  REQUIRE(c->objects.size() == 1);
  const auto& spec = c->objects[0].at("spec");
  CHECK(spec.at("runtimeRef").at("name") == "torch-distributed");
  CHECK(spec.at("runtimeRef").at("kind") == "ClusterTrainingRuntime");
  CHECK(spec.at("trainer").at("numNodes") == 3);
  CHECK(spec.at("trainer").at("image") == "docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727");
  CHECK(spec.at("trainer").at("resourcesPerNode").at("requests").at("cpu") == "1");
  CHECK(spec.at("suspend") == false);
  auto out = render(*c);
  INFO((out ? lines(out->warnings) : text(out.error())));
  REQUIRE(out.has_value());
  const auto* node = replicated_job(*jobset(*out), "node");
  REQUIRE(node != nullptr);
  const auto* n = container(*node, "node");
  REQUIRE(n != nullptr);
  CHECK(env_index(*n, "V1_REPLICA_INDEX") < env_index(*n, "RANK"));
  CHECK(env(*n, "RANK") == "$(V1_REPLICA_INDEX)");
  CHECK(env(*n, "MASTER_ADDR") == "pytorch-simple-node-0-0.pytorch-simple");
  CHECK(env(*n, "MASTER_PORT") == "23456");
  CHECK(env(*n, "WORLD_SIZE") == "3");
  CHECK(env(*n, "PYTHONUNBUFFERED") == "1");
  // The plugin's own: same values as v1 set them, but for PET_MASTER_PORT (29500).
  CHECK(env(*n, "PET_NNODES") == "3");
  CHECK(env(*n, "PET_MASTER_ADDR") == "pytorch-simple-node-0-0.pytorch-simple");
  CHECK(env(*n, "PET_NODE_RANK") == kIndexRef);
}

TEST_CASE("XGBoostJob and JAXJob of one plain template: the built-in runtimes", "[convert]") {
  // A job of the given replica types, each one replica of the same plain template.
  auto plain = [](const std::string& kind, const std::string& field,
                  const std::vector<std::string>& types, const std::string& container) {
    json::object specs;
    for (const auto& t : types) {
      specs[t] = json::parse(R"({"replicas": 1, "restartPolicy": "OnFailure", "template":
          {"spec": {"containers": [{"name": ")" +
                             container + R"(", "image": "img", "command": ["train"]}]}}})");
    }
    return json::value(json::object{{"apiVersion", "kubeflow.org/v1"},
                                    {"kind", kind},
                                    {"metadata", json::object{{"name", "plain"}}},
                                    {"spec", json::object{{field, std::move(specs)}}}});
  };
  auto x = trainer::convert::convert_job(
      plain("XGBoostJob", "xgbReplicaSpecs", {"Master", "Worker"}, "xgboost"));
  REQUIRE(x.has_value());
  REQUIRE(x->objects.size() == 1);
  CHECK(x->objects[0].at("spec").at("runtimeRef").at("name") == "xgboost-distributed");
  auto xr = render(*x);
  INFO((xr ? lines(xr->warnings) : text(xr.error())));
  REQUIRE(xr.has_value());
  const auto* xn = container(*replicated_job(*jobset(*xr), "node"), "node");
  REQUIRE(xn != nullptr);
  CHECK(env(*xn, "MASTER_ADDR") == "plain-node-0-0.plain");
  CHECK(env(*xn, "WORKER_ADDRS") == "plain-node-0-1.plain");
  CHECK(env(*xn, "DMLC_TRACKER_URI") == "plain-node-0-0.plain");

  auto j = trainer::convert::convert_job(plain("JAXJob", "jaxReplicaSpecs", {"Worker"}, "jax"));
  REQUIRE(j.has_value());
  REQUIRE(j->objects.size() == 1);
  CHECK(j->objects[0].at("spec").at("runtimeRef").at("name") == "jax-distributed");
  auto jr = render(*j);
  INFO((jr ? lines(jr->warnings) : text(jr.error())));
  REQUIRE(jr.has_value());
  const auto* jn = container(*replicated_job(*jobset(*jr), "node"), "node");
  REQUIRE(jn != nullptr);
  CHECK(env(*jn, "COORDINATOR_ADDRESS") == "plain-node-0-0.plain");
  CHECK(env(*jn, "PROCESS_ID") == "$(V1_REPLICA_INDEX)");
}
