// SPDX-License-Identifier: Apache-2.0
//
// Hand-built Info/PodSet/TrainJob fixtures for the ML-policy plugin tests (torch, plainml, jax,
// xgboost, flux). They do not depend on the framework's builder of Info.
#pragma once

#include "trainer/framework.hpp"
#include "trainer/model.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <optional>
#include <string>
#include <vector>

namespace fixtures {

namespace json = boost::json;

inline json::object obj(const char* text) {
  return json::parse(text).as_object();
}
inline json::array arr(const char* text) {
  return json::parse(text).as_array();
}

inline trainer::Container container(std::string name) {
  trainer::Container c;
  c.name = std::move(name);
  return c;
}

/// A PodSet `name` with the given ancestor and count, regular containers and init containers.
inline trainer::PodSet pod_set(std::string name, std::optional<std::string> ancestor,
                               std::optional<std::int32_t> count,
                               std::vector<std::string> containers = {},
                               std::vector<std::string> init_containers = {}) {
  trainer::PodSet ps;
  ps.name = std::move(name);
  ps.ancestor = std::move(ancestor);
  ps.count = count;
  for (auto& c : containers) ps.containers.push_back(container(std::move(c)));
  for (auto& c : init_containers) ps.init_containers.push_back(container(std::move(c)));
  return ps;
}

/// The usual trainer PodSet: `node`, ancestor `trainer`, one container `node`.
inline trainer::PodSet trainer_pod_set(std::int32_t count = 1) {
  return pod_set("node", "trainer", count, {"node"});
}

/// A JobSet spec with one replicated job `node` (ancestor trainer) whose `node` container has the
/// given resources and command (JSON texts).
inline json::object trainer_jobset_spec(const char* resources_json,
                                        const char* command_json = "[]") {
  json::object container{{"name", "node"}, {"image", "example.com/train:1"}};
  container["command"] = json::parse(command_json);
  container["resources"] = json::parse(resources_json);
  json::object pod_spec{{"containers", json::array{container}}};
  json::object job_template{
      {"metadata",
       json::object{
           {"labels", json::object{{"trainer.kubeflow.org/trainjob-ancestor-step", "trainer"}}}}},
      {"spec", json::object{{"template", json::object{{"spec", pod_spec}}}}}};
  json::object job{{"name", "node"}, {"template", job_template}};
  return json::object{{"replicatedJobs", json::array{job}}};
}

inline trainer::Info info_with(trainer::MLPolicy policy, std::vector<trainer::PodSet> pod_sets,
                               json::object jobset_spec = {}) {
  trainer::Info info;
  info.runtime_policy.ml_policy = std::move(policy);
  info.template_spec.pod_sets = std::move(pod_sets);
  info.template_spec.jobset_spec = std::move(jobset_spec);
  return info;
}

inline trainer::MLPolicy torch_policy() {
  trainer::MLPolicy p;
  p.torch = trainer::TorchMLPolicySource{};
  return p;
}

inline trainer::TrainJob train_job(std::string name = "test-job", std::string ns = "default") {
  trainer::TrainJob job;
  job.metadata.name = std::move(name);
  job.metadata.namespace_ = std::move(ns);
  job.spec.runtime_ref.name = "torch-distributed";
  return job;
}

inline trainer::Trainer& trainer_of(trainer::TrainJob& job) {
  if (!job.spec.trainer) job.spec.trainer = trainer::Trainer{};
  return *job.spec.trainer;
}

/// The env var `name` of a container, or null.
inline const json::object* find_env(const trainer::Container& c, std::string_view name) {
  for (const auto& v : c.env) {
    const auto& o = v.as_object();
    if (o.at("name").as_string() == name) return &o;
  }
  return nullptr;
}

/// The literal value of env var `name`, or "<absent>".
inline std::string env_value(const trainer::Container& c, std::string_view name) {
  const auto* var = find_env(c, name);
  if (var == nullptr) return "<absent>";
  const auto* value = var->if_contains("value");
  return value != nullptr ? std::string(value->as_string()) : "<no value>";
}

inline std::vector<std::string> env_names(const trainer::Container& c) {
  std::vector<std::string> names;
  for (const auto& v : c.env) names.emplace_back(v.as_object().at("name").as_string());
  return names;
}

}  // namespace fixtures
