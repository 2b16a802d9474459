// SPDX-License-Identifier: Apache-2.0
//
// Shared builders for the validation tests: minimal valid objects and the rendered error list.
#pragma once

#include "trainer/codec.hpp"
#include "trainer/validation.hpp"

#include <catch2/catch.hpp>

#include <boost/json/parse.hpp>

#include <string>
#include <vector>

namespace trainer::test {

inline std::vector<std::string> rendered(const ValidationResult& r) {
  std::vector<std::string> out;
  for (const auto& e : r.errors) out.push_back(e.to_string());
  return out;
}

inline TrainJob valid_job() {
  TrainJob job;
  job.metadata.name = "my-job";
  job.metadata.namespace_ = "team";
  job.spec.runtime_ref.name = "torch-distributed";
  job.spec.runtime_ref.api_group = "trainer.kubeflow.org";
  job.spec.runtime_ref.kind = "ClusterTrainingRuntime";
  job.spec.suspend = false;
  job.spec.managed_by = kManagedByTrainer;
  return job;
}

/// The documents of a YAML or JSON text; the test fails when it does not parse.
inline std::vector<boost::json::value> documents(const std::string& text) {
  auto parsed = parse_documents(text);
  REQUIRE(parsed);
  return *parsed;
}

inline boost::json::object json_object(const char* text) {
  return boost::json::parse(text).as_object();
}

inline boost::json::object env(const char* name, const char* value) {
  boost::json::object o;
  o["name"] = name;
  o["value"] = value;
  return o;
}

/// A runtime whose JobSet has a trainer-ancestor job `node` with container `node`.
template <class Runtime>
Runtime valid_runtime(const char* name) {
  Runtime rt;
  rt.metadata.name = name;
  rt.spec.ml_policy = MLPolicy{};
  rt.spec.ml_policy->num_nodes = 1;
  rt.spec.ml_policy->torch = TorchMLPolicySource{};
  rt.spec.template_.spec = json_object(R"({
    "replicatedJobs": [{
      "name": "node", "replicas": 1, "groupName": "default",
      "template": {
        "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
        "spec": {"template": {"spec": {"containers": [{"name": "node", "image": "pytorch"}]}}}
      }
    }]
  })");
  return rt;
}

}  // namespace trainer::test
