// SPDX-License-Identifier: Apache-2.0
//
// The declarative codec's own rules (lib/api/model_describe.hpp, struct_codec.hpp): how a member
// name becomes a JSON name, and where encoding departs from omit-when-empty.
#include "api/json_name.hpp"
#include "api/model_describe.hpp"
#include "test_support.hpp"

#include <boost/describe/members.hpp>
#include <boost/describe/modifiers.hpp>
#include <boost/json/serialize.hpp>
#include <boost/mp11/algorithm.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace {

template <class T>
std::vector<std::string> json_names() {
  std::vector<std::string> names;
  boost::mp11::mp_for_each<boost::describe::describe_members<T, boost::describe::mod_public>>(
      [&](auto field) { names.emplace_back(trainer::detail::JsonName<decltype(field)>::value); });
  return names;
}

}  // namespace

TEST_CASE("JSON names are the camelCase member names, keyword underscores dropped", "[codec]") {
  CHECK(json_names<trainer::ObjectMeta>() ==
        std::vector<std::string>{"name", "generateName", "namespace", "uid", "resourceVersion",
                                 "generation", "creationTimestamp", "deletionTimestamp",
                                 "deletionGracePeriodSeconds", "labels", "annotations",
                                 "ownerReferences", "finalizers", "managedFields"});
  CHECK(json_names<trainer::TrainingRuntimeSpec>() ==
        std::vector<std::string>{"mlPolicy", "podGroupPolicy", "template"});
  CHECK(json_names<trainer::SearchSpace>() ==
        std::vector<std::string>{"uniform", "logUniform", "categorical"});
  CHECK(json_names<trainer::JAXMLPolicySource>().empty());
}

TEST_CASE("empty plain members are left out unless Go writes them", "[codec]") {
  trainer::OptimizationJob job;
  job.metadata.name = "tune";
  job.spec.parameters.emplace_back();
  job.spec.objectives.emplace_back();
  job.status.emplace().conditions.emplace_back();
  // Every field of a kind and of metav1.Condition is written; searchSpace has no omitzero; an
  // empty objective metric, an empty trainJobTemplate and an empty name are left out.
  CHECK(
      boost::json::serialize(trainer::to_json(job)) ==
      R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"OptimizationJob",)"
      R"("metadata":{"name":"tune"},"spec":{"objectives":[{}],"parameters":[{"searchSpace":{}}]},)"
      R"("status":{"conditions":[{"type":"","status":"","lastTransitionTime":"","reason":"",)"
      R"("message":""}]}})");

  trainer::TrainJob tj;
  tj.api_version.clear();
  tj.spec.trainer.emplace().command.emplace();
  // A present optional is written even when empty; runtimeRef is omitzero.
  CHECK(boost::json::serialize(trainer::to_json(tj)) ==
        R"({"apiVersion":"","kind":"TrainJob","metadata":{},"spec":{"trainer":{"command":[]}}})");
}

TEST_CASE("a known field the model drops is skipped without a warning", "[codec]") {
  auto decoded = trainer::decode_train_job(trainer::test::json(
      R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",)"
      R"("metadata":{"selfLink":"/x","bogus":1},"spec":{"trainer":{"selfLink":1}}})"));
  REQUIRE(decoded);
  CHECK(decoded->warnings == std::vector<std::string>{"unknown field \"metadata.bogus\"",
                                                      "unknown field \"spec.trainer.selfLink\""});
}
