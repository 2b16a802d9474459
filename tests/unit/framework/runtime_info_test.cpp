// SPDX-License-Identifier: Apache-2.0
#include "test_support.hpp"
#include "trainer/render.hpp"

namespace json = boost::json;

namespace {

constexpr const char* kRuntime = R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: rt, namespace: default}
spec:
  mlPolicy: {numNodes: 4}
  template:
    metadata:
      labels: {a: runtime, b: runtime}
      annotations: {x: runtime}
    spec:
      replicatedJobs:
        - name: dataset-initializer
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: dataset-initializer}
            spec:
              parallelism: 0
              template:
                spec:
                  containers:
                    - name: dataset-initializer
                      image: init:v1
                      resources: {requests: {cpu: "1"}}
        - name: node
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              parallelism: 7
              template:
                spec:
                  initContainers:
                    - name: prep
                      image: prep:v1
                  containers:
                    - name: node
                      image: train:v1
                      command: [run]
                      env: [{name: A, value: "1"}]
                      ports: [{containerPort: 1234}]
                      resources: {limits: {cpu: "4", memory: 8Gi}, requests: {cpu: "2"}}
                    - name: node
                      image: second:v1
                  volumes: [{name: data, emptyDir: {}}]
        - name: extra
          template:
            spec:
              parallelism: 5
              template:
                spec:
                  containers: [{name: extra, image: extra:v1}]
)";

const json::object& job_at(const trainer::Info& info, std::size_t i) {
  return info.template_spec.jobset_spec.at("replicatedJobs").get_array().at(i).get_object();
}

}  // namespace

TEST_CASE("new_runtime_info builds one PodSet per replicated job") {
  const auto rt = fwtest::training_runtime(kRuntime);
  const auto job = fwtest::train_job(R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j, namespace: default, labels: {not: propagated}}
spec:
  runtimeRef: {name: rt, kind: TrainingRuntime}
)");
  auto info = trainer::new_runtime_info(job, rt.spec);
  REQUIRE(info);
  CHECK(info->labels == trainer::StringMap{{"a", "runtime"}, {"b", "runtime"}});
  // Without runtime patches there is nothing to check patch targets against: no copy is kept.
  CHECK(info->template_spec.runtime_jobset_spec.empty());
  CHECK(info->template_spec.jobset_spec == rt.spec.template_.spec);
  CHECK(info->annotations == trainer::StringMap{{"x", "runtime"}});
  REQUIRE(info->template_spec.pod_sets.size() == 3);
  const auto& init = info->template_spec.pod_sets[0];
  CHECK(init.name == "dataset-initializer");
  CHECK(init.ancestor == std::optional<std::string>("dataset-initializer"));
  CHECK(init.count == 1);  // parallelism 0 clamps to 1
  const auto& node = info->template_spec.pod_sets[1];
  CHECK(node.count == 4);  // trainer ancestor with mlPolicy: mlPolicy.numNodes
  REQUIRE(node.containers.size() == 2);
  CHECK(node.containers[0].image == "train:v1");
  CHECK(node.containers[0].command == std::vector<std::string>{"run"});
  CHECK(node.containers[0].env.size() == 1);
  CHECK(node.containers[0].ports.size() == 1);
  REQUIRE(node.init_containers.size() == 1);
  CHECK(node.init_containers[0].name == "prep");
  CHECK(node.volumes.size() == 1);
  CHECK(node.single_pod_requests.at("cpu") == *trainer::Quantity::parse("2"));
  const auto& extra = info->template_spec.pod_sets[2];
  CHECK_FALSE(extra.ancestor);
  CHECK(extra.count == 5);
  CHECK(info->find_pod_set_by_ancestor("trainer") == &info->template_spec.pod_sets[1]);
  CHECK(info->find_pod_set_by_name("extra") == &info->template_spec.pod_sets[2]);
  CHECK(info->find_pod_set_by_name("none") == nullptr);
  CHECK(node.find_container("prep") == &node.init_containers[0]);
  CHECK(node.find_container("node") == &node.containers[0]);
}

TEST_CASE("resourcesPerNode merges into the first node container of the trainer job") {
  const auto rt = fwtest::training_runtime(kRuntime);
  const auto job = fwtest::train_job(R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j, namespace: default}
spec:
  runtimeRef: {name: rt, kind: TrainingRuntime}
  trainer:
    resourcesPerNode: {limits: {nvidia.com/gpu: 2}, requests: {cpu: "3"}}
)");
  auto info = trainer::new_runtime_info(job, rt.spec);
  REQUIRE(info);
  const auto& containers =
      job_at(*info, 1).at("template").at("spec").at("template").at("spec").at("containers");
  CHECK(containers.at(0).at("resources") ==
        fwtest::yaml("{limits: {cpu: '4', memory: 8Gi, nvidia.com/gpu: 2}, requests: {cpu: '3'}}"));
  CHECK(containers.at(1).get_object().if_contains("resources") == nullptr);
  CHECK(info->template_spec.pod_sets[1].single_pod_requests.at("cpu") ==
        *trainer::Quantity::parse("3"));
}

TEST_CASE("resourcesPerNode is ignored when the runtime has no mlPolicy") {
  auto rt = fwtest::training_runtime(kRuntime);
  rt.spec.ml_policy.reset();
  const auto job = fwtest::train_job(R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j, namespace: default}
spec:
  runtimeRef: {name: rt, kind: TrainingRuntime}
  trainer: {resourcesPerNode: {limits: {nvidia.com/gpu: 2}}}
)");
  auto info = trainer::new_runtime_info(job, rt.spec);
  REQUIRE(info);
  CHECK(info->template_spec.pod_sets[1].count == 7);  // parallelism without mlPolicy
  const auto& c =
      job_at(*info, 1).at("template").at("spec").at("template").at("spec").at("containers");
  CHECK(c.at(0).at("resources") ==
        fwtest::yaml("{limits: {cpu: '4', memory: 8Gi}, requests: {cpu: '2'}}"));
}

TEST_CASE("runtime patches apply in order, later managers win, job order is kept") {
  const auto rt = fwtest::training_runtime(kRuntime);
  const auto job = fwtest::train_job(R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j, namespace: default}
spec:
  runtimeRef: {name: rt, kind: TrainingRuntime}
  runtimePatches:
    - manager: example.com/one
      trainingRuntimeSpec:
        template:
          metadata: {labels: {a: one, c: one}, annotations: {anno: one}}
          spec:
            replicatedJobs:
              - name: extra
                template:
                  spec:
                    template:
                      spec:
                        nodeSelector: {k: one, only-one: "1"}
              - name: node
                template:
                  spec:
                    template:
                      spec:
                        tolerations: [{key: t1, operator: Exists}]
    - manager: example.com/two
      trainingRuntimeSpec:
        template:
          metadata: {labels: {c: two}}
          spec:
            replicatedJobs:
              - name: extra
                template:
                  spec:
                    template:
                      spec:
                        nodeSelector: {k: two}
                        tolerations: [{key: t2, operator: Exists}]
)");
  auto info = trainer::new_runtime_info(job, rt.spec);
  REQUIRE(info);
  CHECK(info->labels == trainer::StringMap{{"a", "one"}, {"b", "runtime"}, {"c", "two"}});
  CHECK(info->annotations == trainer::StringMap{{"anno", "one"}, {"x", "runtime"}});
  CHECK(job_at(*info, 0).at("name") == "dataset-initializer");
  CHECK(job_at(*info, 1).at("name") == "node");
  CHECK(job_at(*info, 2).at("name") == "extra");
  const auto& extra_pod = job_at(*info, 2).at("template").at("spec").at("template").at("spec");
  CHECK(extra_pod.at("nodeSelector") == fwtest::yaml("{k: two, only-one: '1'}"));
  CHECK(extra_pod.at("tolerations") == fwtest::yaml("[{key: t2, operator: Exists}]"));
  // The runtime's own template is kept for the patch-target rules.
  CHECK(info->template_spec.runtime_jobset_spec == rt.spec.template_.spec);
}
