// SPDX-License-Identifier: Apache-2.0
//
// The declarative codec's own rules (lib/api/model_describe.hpp, struct_codec.hpp): how a member
// name becomes a JSON name, and where encoding departs from omit-when-empty.
#include "api/struct_codec.hpp"
#include "api/decode_taking.hpp"
#include "api/json_name.hpp"
#include "api/model_describe.hpp"
#include "test_support.hpp"

#include <boost/describe/members.hpp>
#include <boost/describe/modifiers.hpp>
#include <boost/json/serialize.hpp>
#include <boost/mp11/algorithm.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <utility>
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

TEST_CASE("a document or struct given up decodes and encodes as a kept one, by moving", "[codec]") {
  for (const char* file : {"api/full-runtime.yaml", "api/full-trainjob.yaml"}) {
    INFO(file);
    const auto doc = trainer::test::one_doc(trainer::test::read_data(file));
    const bool runtime = doc.at("kind") == "TrainingRuntime";
    const auto kept = runtime ? trainer::to_json(trainer::decode_training_runtime(doc)->object)
                              : trainer::to_json(trainer::decode_train_job(doc)->object);

    boost::json::value given_up = doc;
    boost::json::value encoded;
    if (runtime) {
      auto r = trainer::detail::decode_taking<trainer::TrainingRuntime>(std::move(given_up));
      REQUIRE(r);
      CHECK(r->warnings == trainer::decode_training_runtime(doc)->warnings);
      // The template was moved out of the document, not copied.
      CHECK(given_up.at("spec").at("template").at("spec").get_object().empty());
      encoded = trainer::detail::to_value(trainer::detail::Enc{}, std::move(r->object));
      CHECK(r->object.spec.template_.spec.empty());
    } else {
      auto r = trainer::detail::decode_taking<trainer::TrainJob>(std::move(given_up));
      REQUIRE(r);
      CHECK(r->warnings == trainer::decode_train_job(doc)->warnings);
      encoded = trainer::detail::to_value(trainer::detail::Enc{}, std::move(r->object));
    }
    CHECK(boost::json::serialize(encoded) == boost::json::serialize(kept));
  }
}
