// SPDX-License-Identifier: Apache-2.0
#include "tuning_fixtures.hpp"

#include <catch2/catch.hpp>

using namespace trainer;
using namespace trainer::tuning;
using tuning_test::categorical;
using tuning_test::range;

TEST_CASE("make_trial: name, label, annotations, env, owner reference as upstream's controller") {
  auto j = tuning_test::job({range("learning-rate", "0.001", "0.1", true),
                             categorical("optimizer.name", {"adam", "sgd"})});
  j.spec.train_job_template.metadata.annotations["team"] = "vision";
  j.spec.train_job_template.metadata.labels["kept"] = "no";
  j.spec.train_job_template.spec.trainer.emplace();
  j.spec.train_job_template.spec.trainer->env.push_back(
      boost::json::object{{"name", "EPOCHS"}, {"value", "3"}});
  const Assignment a{{"learning-rate", "0.01"}, {"optimizer.name", "adam"}};
  auto t = make_trial(j, 4, a);
  REQUIRE(t);
  CHECK(t->metadata.name == "tune-trial-4");
  CHECK(t->metadata.namespace_ == "ml");
  CHECK(t->metadata.labels == StringMap{{"trainer.kubeflow.org/optimizationjob-name",
                                         "tune"}});  // template labels not copied
  CHECK(t->metadata.annotations ==
        StringMap{{"team", "vision"},
                  {"trainer.kubeflow.org/opt-param-learning-rate", "0.01"},
                  {"trainer.kubeflow.org/opt-param-optimizer.name", "adam"}});
  REQUIRE(t->spec.trainer);
  const auto& env = t->spec.trainer->env;
  REQUIRE(env.size() == 3);
  CHECK(env[0] == boost::json::object{{"name", "EPOCHS"}, {"value", "3"}});
  CHECK(env[1] ==
        boost::json::object{{"name", "KUBEFLOW_TRAINER_OPT_LEARNING_RATE"}, {"value", "0.01"}});
  CHECK(env[2] ==
        boost::json::object{{"name", "KUBEFLOW_TRAINER_OPT_OPTIMIZER_NAME"}, {"value", "adam"}});
  CHECK(t->spec.runtime_ref.name == "torch-distributed");
  REQUIRE(t->metadata.owner_references.size() == 1);
  CHECK(t->metadata.owner_references[0] ==
        boost::json::value(boost::json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                                               {"kind", "OptimizationJob"},
                                               {"name", "tune"},
                                               {"uid", "uid-1"},
                                               {"controller", true},
                                               {"blockOwnerDeletion", true}}));
}

TEST_CASE("make_trial creates spec.trainer when the template has none") {
  auto j = tuning_test::job({range("x", "0", "1")});
  auto t = make_trial(j, 0, {{"x", "0.5"}});
  REQUIRE(t);
  REQUIRE(t->spec.trainer);
  CHECK(t->spec.trainer->env.size() == 1);
  CHECK(t->metadata.name == "tune-trial-0");
}

TEST_CASE("make_trial rejects names that give no env name or annotation key, and collisions") {
  auto j = tuning_test::job({range("a-b", "0", "1"), range("a.b", "0", "1"),
                             range("bad name", "0", "1"), range("ends-", "0", "1")});
  auto t = make_trial(j, 0, {{"a-b", "1"}, {"a.b", "1"}, {"bad name", "1"}, {"ends-", "1"}});
  REQUIRE_FALSE(t);
  CHECK(t.error().code == ErrorCode::kInvalid);
  REQUIRE(t.error().fields.size() == 3);
  CHECK(t.error().fields[0].type == FieldErrorType::kDuplicate);
  CHECK(t.error().fields[0].path == "spec.parameters[1].name");
  CHECK(t.error().fields[1].path == "spec.parameters[2].name");
  CHECK(t.error().fields[2].path == "spec.parameters[3].name");
}

TEST_CASE("make_trial needs the job's name and an assignment in spec order") {
  auto j = tuning_test::job({range("x", "0", "1")});
  CHECK(make_trial(j, 0, {{"y", "1"}}).error().code == ErrorCode::kInvalidArgument);
  CHECK(make_trial(j, 0, {}).error().code == ErrorCode::kInvalidArgument);
  j.metadata.name.reset();
  auto t = make_trial(j, 0, {{"x", "1"}});
  REQUIRE_FALSE(t);
  CHECK(t.error().fields.at(0).path == "metadata.name");
}
