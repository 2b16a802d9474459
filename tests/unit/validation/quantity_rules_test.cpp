// SPDX-License-Identifier: Apache-2.0
//
// Quantity fields of TrainJobs and runtimes: refused at admission at their own field path, with
// the CRD schema's, the typed decode's or core validation's text.
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <boost/json/parse.hpp>

using trainer::test::json_object;
using trainer::test::rendered;
using trainer::test::valid_job;
using Strings = std::vector<std::string>;

namespace {

const std::string kPattern =
    R"('^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$')";

Strings job_errors(const char* resources) {
  trainer::TrainJob job = valid_job();
  job.spec.trainer = trainer::Trainer{};
  job.spec.trainer->resources_per_node = json_object(resources);
  return rendered(trainer::validate_train_job(job));
}

}  // namespace

TEST_CASE("resourcesPerNode quantities are checked at their own path", "[validation][quantity]") {
  CHECK(job_errors(R"({"limits": {"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": 2},
                      "requests": {"cpu": "1500m", "memory": 1073741824, "x": "1e3"}})")
            .empty());
  const std::string p = "spec.trainer.resourcesPerNode";
  // The schema pattern (the API server): `.` and a bare sign have no digit.
  CHECK(job_errors(R"({"limits": {"cpu": "."}})") ==
        Strings{p + ".limits.cpu: Invalid value: \".\": " + p +
                ".limits.cpu in body should match " + kPattern});
  CHECK(job_errors(R"({"requests": {"memory": "-", "cpu": "2 cores"}})") ==
        Strings{p + ".requests.memory: Invalid value: \"-\": " + p +
                    ".requests.memory in body should match " + kPattern,
                p + ".requests.cpu: Invalid value: \"2 cores\": " + p +
                    ".requests.cpu in body should match " + kPattern});
  // The schema's type: integer or string.
  CHECK(job_errors(R"({"limits": {"cpu": 1.5, "memory": true}})") ==
        Strings{p + ".limits.cpu: Invalid value: \"number\": " + p +
                    ".limits.cpu in body must be of type integer,string: \"number\"",
                p + ".limits.memory: Invalid value: \"boolean\": " + p +
                    ".limits.memory in body must be of type integer,string: \"boolean\""});
  CHECK(job_errors(R"({"limits": []})") ==
        Strings{p + ".limits: Invalid value: \"array\": " + p +
                ".limits in body must be of type object: \"array\""});
  // Text the pattern allows but the typed decode (ParseQuantity) refuses, and an exponent out of
  // range.
  CHECK(job_errors(R"({"limits": {"cpu": "1e1.5", "memory": "1e9999999999"}})") ==
        Strings{p + ".limits.cpu: Invalid value: \"1e1.5\": quantities must match the regular "
                    "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
                p + ".limits.memory: Invalid value: \"1e9999999999\": quantity too large: the "
                    "magnitude must be below 10^1000"});
  // Core validation (ValidateResourceQuantityValue) at the field.Path with a key.
  CHECK(job_errors(R"({"limits": {"cpu": "-1", "memory": -5},
                      "requests": {"nvidia.com/gpu": "500m", "example.com/fpga": "1.5",
                                   "kubernetes.io/x": "500m", "cpu": "500m"}})") ==
        Strings{p + ".limits[cpu]: Invalid value: \"-1\": must be greater than or equal to 0",
                p + ".limits[memory]: Invalid value: \"-5\": must be greater than or equal to 0",
                p + ".requests[nvidia.com/gpu]: Invalid value: \"500m\": must be an integer",
                p + ".requests[example.com/fpga]: Invalid value: \"1500m\": must be an integer"});
}

TEST_CASE("runtime patch volumes: quantity fields", "[validation][quantity]") {
  trainer::TrainJob job = valid_job();
  trainer::RuntimePatch patch;
  patch.manager = "example.com/m";
  trainer::PodSpecPatch pod;
  pod.volumes.push_back(json_object(R"({"name": "a", "emptyDir": {"sizeLimit": "-1Gi"}})"));
  pod.volumes.push_back(json_object(R"({"name": "b", "emptyDir": {"sizeLimit": "1 Gi"}})"));
  pod.volumes.push_back(json_object(
      R"({"name": "c", "ephemeral": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "x"}}}}}})"));
  pod.volumes.push_back(json_object(R"({"name": "d", "emptyDir": {"sizeLimit": "1Gi"}})"));
  trainer::ReplicatedJobPatch rjob;
  rjob.name = "node";
  rjob.template_ = trainer::JobTemplatePatch{};
  rjob.template_->spec = trainer::JobSpecPatch{};
  rjob.template_->spec->template_ = trainer::PodTemplatePatch{};
  rjob.template_->spec->template_->spec = pod;
  patch.training_runtime_spec = trainer::TrainingRuntimeSpecPatch{};
  patch.training_runtime_spec->template_ = trainer::JobSetTemplatePatch{};
  patch.training_runtime_spec->template_->spec = trainer::JobSetSpecPatch{};
  patch.training_runtime_spec->template_->spec->replicated_jobs.push_back(rjob);
  job.spec.runtime_patches.push_back(patch);
  const std::string p =
      "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec."
      "template.spec.volumes";
  CHECK(rendered(trainer::validate_train_job(job)) ==
        Strings{p + "[0].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource "
                    "quantity",
                p + "[1].emptyDir.sizeLimit: Invalid value: \"1 Gi\": " + p +
                    "[1].emptyDir.sizeLimit in body should match " + kPattern,
                p +
                    "[2].ephemeral.volumeClaimTemplate.spec.resources.requests.storage: Invalid "
                    "value: \"x\": " +
                    p +
                    "[2].ephemeral.volumeClaimTemplate.spec.resources.requests.storage in body "
                    "should match " +
                    kPattern});
}

TEST_CASE("runtime pod templates: every quantity field", "[validation][quantity]") {
  trainer::TrainingRuntime rt;
  rt.metadata.name = "rt";
  rt.spec.template_.spec = json_object(R"({"replicatedJobs": [{"name": "node", "template": {
    "spec": {"template": {"spec": {
      "containers": [{"name": "a", "resources": {"limits": {"cpu": "1"}}},
                     {"name": "b", "resources": {"requests": {"cpu": "abc"}}}],
      "initContainers": [{"name": "i", "resources": {"limits": {"memory": "-1Mi"}}}],
      "ephemeralContainers": [{"name": "e", "resources": {"limits": {"memory": ".5."}}}],
      "overhead": {"cpu": "."},
      "resources": {"requests": {"memory": 0.5}},
      "volumes": [{"name": "v", "emptyDir": {"sizeLimit": "+"}}]}}}}}]})");
  const std::string p = "spec.template.spec.replicatedJobs[0].template.spec.template.spec";
  CHECK(rendered(trainer::validate_training_runtime(rt)) ==
        Strings{
            p + ".volumes[0].emptyDir.sizeLimit: Invalid value: \"+\": " + p +
                ".volumes[0].emptyDir.sizeLimit in body should match " + kPattern,
            p + ".initContainers[0].resources.limits[memory]: Invalid value: \"-1Mi\": must be "
                "greater than or equal to 0",
            p + ".containers[1].resources.requests.cpu: Invalid value: \"abc\": " + p +
                ".containers[1].resources.requests.cpu in body should match " + kPattern,
            p + ".ephemeralContainers[0].resources.limits.memory: Invalid value: \".5.\": " + p +
                ".ephemeralContainers[0].resources.limits.memory in body should match " + kPattern,
            p + ".overhead.cpu: Invalid value: \".\": " + p +
                ".overhead.cpu in body should match " + kPattern,
            p + ".resources.requests.memory: Invalid value: \"number\": " + p +
                ".resources.requests.memory in body must be of type integer,string: "
                "\"number\""});
}
