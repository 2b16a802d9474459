// SPDX-License-Identifier: Apache-2.0
//
// Katib Experiment -> OptimizationJob (trainer::convert, reference 5.4) on Katib's example
// experiments (tests/data/katib, our own copies), then admitted as the output would be.
#include "trainer/admission.hpp"
#include "trainer/codec.hpp"
#include "trainer/convert.hpp"
#include "trainer/tuning.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace json = boost::json;
using Strings = std::vector<std::string>;

namespace {

json::value experiment(const std::string& file) {
  std::ifstream in("tests/data/katib/" + file, std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  auto docs = trainer::parse_documents(s.str());
  REQUIRE(docs);
  REQUIRE(docs->size() == 1);
  return docs->front();
}

json::value yaml(const char* text) {
  auto docs = trainer::parse_documents(text);
  REQUIRE(docs);
  return docs->front();
}

// A small valid experiment with `extra` spliced into its spec.
json::value small(const std::string& spec_extra, const std::string& algorithm = "random",
                  const std::string& param =
                      "{name: lr, parameterType: double, feasibleSpace: "
                      "{min: \"0.1\", max: \"0.5\"}}") {
  const std::string text = R"(apiVersion: kubeflow.org/v1beta1
kind: Experiment
metadata: {name: e}
spec:
  objective: {type: minimize, objectiveMetricName: loss}
  algorithm: {algorithmName: )" +
                           algorithm +
                           R"(}
  maxTrialCount: 4
  parameters: [)" + param + R"(]
  trialTemplate:
    trialParameters: [{name: lr, reference: lr}]
    trialSpec:
      apiVersion: trainer.kubeflow.org/v1alpha1
      kind: TrainJob
      spec:
        runtimeRef: {name: torch-distributed}
        trainer: {args: ["--lr=${trialParameters.lr}"]}
)" + spec_extra;
  auto docs = trainer::parse_documents(text);
  REQUIRE(docs);
  return docs->front();
}

Strings paths_of(const trainer::Error& e) {
  Strings out;
  for (const auto& f : e.fields) out.push_back(f.to_string());
  return out;
}

}  // namespace

TEST_CASE("Katib's random example converts to a PlainML runtime and an OptimizationJob",
          "[convert][katib]") {
  const auto exp = experiment("random.yaml");
  REQUIRE(trainer::convert::is_convertible("kubeflow.org/v1beta1", "Experiment"));
  auto out = trainer::convert::convert_job(exp);
  REQUIRE(out);
  REQUIRE(out->objects.size() == 2);
  CHECK(trainer::encode_json(out->objects[0]) == trainer::encode_json(json::parse(R"j({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
    "metadata": {"name": "random-trial", "namespace": "kubeflow"},
    "spec": {"mlPolicy": {"numNodes": 1},
      "template": {"spec": {"replicatedJobs": [{"name": "node", "template": {
        "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
        "spec": {"template": {"spec": {
          "containers": [{"name": "node", "image": "docker.io/kubeflowkatib/mxnet-mnist:latest",
            "command": ["python3", "/opt/mxnet-mnist/mnist.py", "--batch-size=64",
                        "--lr=$(KUBEFLOW_TRAINER_OPT_LR)",
                        "--num-layers=$(KUBEFLOW_TRAINER_OPT_NUM_LAYERS)",
                        "--optimizer=$(KUBEFLOW_TRAINER_OPT_OPTIMIZER)"]
}],
          "restartPolicy": "Never"
}
}
}
}
}]
}
}
}
})j")));
  CHECK(trainer::encode_json(out->objects[1]) == trainer::encode_json(json::parse(R"j({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "OptimizationJob",
    "metadata": {"name": "random", "namespace": "kubeflow"},
    "spec": {
      "objectives": [{"metric": "Validation-accuracy", "direction": "Maximize"}],
      "searchAlgorithm": {"random": {"seed": 10}},
      "parameters": [
        {"name": "lr", "searchSpace": {"uniform": {"min": "0.01", "max": "0.03", "type": "Float"}}},
        {"name": "num-layers", "searchSpace": {"uniform": {"min": "2", "max": "5", "type": "Int"}}},
        {"name": "optimizer", "searchSpace": {"categorical": {"choices": ["sgd", "adam", "ftrl"]}}}],
      "numTrials": 12, "parallelTrials": 3,
      "trainJobTemplate": {"spec": {"runtimeRef": {"name": "random-trial",
                                                   "kind": "TrainingRuntime"}}}}})j")));
  CHECK(out->warnings ==
        Strings{"Experiment kubeflow/random: spec.objective.goal: 0.99 has no OptimizationJob "
                "equivalent; it is dropped",
                "Experiment kubeflow/random: spec.objective.additionalMetricNames: "
                "[\"Train-accuracy\"] has no OptimizationJob equivalent; the objective is the "
                "last value the trial reports",
                "Experiment kubeflow/random: spec.maxFailedTrialCount: 3 has no OptimizationJob "
                "equivalent; it is dropped"});

  // The output is admitted: the OptimizationJob's rules and its template against the runtime.
  auto adm = trainer::admit(out->objects);
  REQUIRE(adm);
  CHECK(adm->ok());
  CHECK(adm->warnings.empty());

  // strict: every warning is an error at its path.
  trainer::convert::Options strict;
  strict.strict = true;
  auto refused = trainer::convert::convert_job(exp, strict);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == trainer::ErrorCode::kInvalid);
  REQUIRE(refused.error().fields.size() == 3);
  CHECK(refused.error().fields[2].path == "spec.maxFailedTrialCount");
}

TEST_CASE("Katib's grid example expands ranges to categorical choices", "[convert][katib]") {
  auto out = trainer::convert::convert_job(experiment("grid.yaml"));
  REQUIRE(out);
  CHECK(out->warnings ==
        Strings{"Experiment kubeflow/grid: spec.trialTemplate.primaryContainerName: \"node\" has "
                "no OptimizationJob equivalent; the trainer container is the trial's"});
  REQUIRE(out->objects.size() == 1);
  CHECK(trainer::encode_json(out->objects[0]) == trainer::encode_json(json::parse(R"j({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "OptimizationJob",
    "metadata": {"name": "grid", "namespace": "kubeflow"},
    "spec": {
      "objectives": [{"metric": "loss", "direction": "Minimize"}],
      "searchAlgorithm": {"grid": {}},
      "parameters": [
        {"name": "lr", "searchSpace": {"categorical": {"choices": ["0.001", "0.006"]}}},
        {"name": "momentum", "searchSpace": {"categorical": {"choices": ["1", "4", "7"]}}},
        {"name": "batch", "searchSpace": {"categorical": {"choices": ["32", "64"]}}}],
      "numTrials": 12, "parallelTrials": 2,
      "trainJobTemplate": {
        "metadata": {"labels": {"team": "ml"}},
        "spec": {"runtimeRef": {"name": "torch-distributed"},
          "trainer": {"image": "docker.io/kubeflow/pytorch-mnist:latest",
            "args": ["--lr=$(KUBEFLOW_TRAINER_OPT_LR)",
                     "--momentum=$(KUBEFLOW_TRAINER_OPT_MOMENTUM)",
                     "--batch-size=$(KUBEFLOW_TRAINER_OPT_BATCH)"]
}
}
}
}
})j")));
  auto adm = trainer::admit(out->objects);
  REQUIRE(adm);
  CHECK(adm->ok());
}

TEST_CASE("Katib Experiment conversion: defaults, refusals and warnings with paths",
          "[convert][katib]") {
  SECTION("parallelTrialCount defaults to Katib's 3, capped at maxTrialCount") {
    auto out = trainer::convert::convert_job(small(""));
    REQUIRE(out);
    const auto& spec = out->objects.back().at("spec");
    CHECK(spec.at("parallelTrials") == 3);
    CHECK(out->objects.back().at("metadata").at("namespace") == "default");
  }
  SECTION("maxTrialCount is required and at most 100; parallel <= max") {
    json::value experiment_json = small("");
    auto& spec = experiment_json.at("spec").as_object();
    spec["maxTrialCount"] = 101;
    spec["parallelTrialCount"] = 9;
    spec["x"] = json::array{1};
    auto none = trainer::convert::convert_job(experiment_json);
    REQUIRE_FALSE(none);
    // Warnings (spec.x) are errors only under strict.
    CHECK(paths_of(none.error()) ==
          Strings{"spec.maxTrialCount: Invalid value: 101: an OptimizationJob runs 1..100 "
                  "trials"});
    spec["maxTrialCount"] = 4;
    auto parallel = trainer::convert::convert_job(experiment_json);
    REQUIRE_FALSE(parallel);
    CHECK(paths_of(parallel.error()) ==
          Strings{"spec.parallelTrialCount: Invalid value: 9: must be between 1 and "
                  "maxTrialCount"});
    // Counts beyond int64 are out of range too, not "not an integer".
    spec["maxTrialCount"] = json::value(std::uint64_t{18446744073709551615ULL});
    spec.erase("parallelTrialCount");
    auto huge = trainer::convert::convert_job(experiment_json);
    REQUIRE_FALSE(huge);
    CHECK(paths_of(huge.error()) ==
          Strings{"spec.maxTrialCount: Invalid value: 18446744073709551615: an OptimizationJob "
                  "runs 1..100 trials"});
    spec["maxTrialCount"] = 4;
    spec["parallelTrialCount"] = json::value(std::int64_t{9223372036854775807LL});
    auto huge_parallel = trainer::convert::convert_job(experiment_json);
    REQUIRE_FALSE(huge_parallel);
    CHECK(paths_of(huge_parallel.error()) ==
          Strings{"spec.parallelTrialCount: Invalid value: 9223372036854775807: must be between "
                  "1 and maxTrialCount"});
    spec.erase("maxTrialCount");
    auto missing = trainer::convert::convert_job(experiment_json);
    REQUIRE_FALSE(missing);
    CHECK(paths_of(missing.error()) ==
          Strings{"spec.maxTrialCount: Required value: an OptimizationJob runs a fixed number of "
                  "trials (1..100)"});
  }
  SECTION(
      "algorithms without a counterpart, normal distributions, NAS and unknown kinds are "
      "refused") {
    for (const char* name : {"hyperband", "pbt", "enas", "darts", "x"}) {
      auto refused = trainer::convert::convert_job(small("", name));
      REQUIRE_FALSE(refused);
      CHECK(paths_of(refused.error()) ==
            Strings{"spec.algorithm.algorithmName: Unsupported value: \"" + std::string(name) +
                    "\": supported values: \"random\", \"grid\", \"tpe\", "
                    "\"bayesianoptimization\", \"multivariate-tpe\", \"cmaes\", \"sobol\""});
    }
    auto normal = trainer::convert::convert_job(small(
        "", "random",
        R"({name: lr, parameterType: double, feasibleSpace: {min: "1", max: "2", distribution: normal}})"));
    REQUIRE_FALSE(normal);
    CHECK(normal.error().fields.at(0).path == "spec.parameters[0].feasibleSpace.distribution");
    auto nas = trainer::convert::convert_job(small("  nasConfig: {}\n"));
    REQUIRE_FALSE(nas);
    CHECK(nas.error().fields.at(0).path == "spec.nasConfig");
  }
  SECTION("grid over a double needs a step; a step without grid is a warning") {
    auto grid = trainer::convert::convert_job(small("", "grid"));
    REQUIRE_FALSE(grid);
    CHECK(paths_of(grid.error()) ==
          Strings{"spec.parameters[0].feasibleSpace.step: Required value: grid search over a "
                  "double parameter needs a step"});
    auto stepped = trainer::convert::convert_job(small(
        "", "random",
        R"({name: lr, parameterType: double, feasibleSpace: {min: "0.1", max: "0.5", step: "0.1"}})"));
    REQUIRE(stepped);
    CHECK(stepped->warnings ==
          Strings{"Experiment default/e: spec.parameters[0].feasibleSpace.step: \"0.1\" has no "
                  "OptimizationJob equivalent; values are sampled from the whole range"});
  }
  SECTION("logUniform maps; the trial template's own fields warn") {
    auto out = trainer::convert::convert_job(small(
        "    successCondition: x\n", "random",
        R"({name: lr, parameterType: double, feasibleSpace: {min: "0.001", max: "0.1", distribution: logUniform}})"));
    REQUIRE(out);
    CHECK(out->objects.back().at("spec").at("parameters").at(0).at("searchSpace") ==
          json::parse(R"({"logUniform": {"min": "0.001", "max": "0.1", "type": "Float"}})"));
    CHECK(out->warnings ==
          Strings{"Experiment default/e: spec.trialTemplate.successCondition: \"x\" has no "
                  "OptimizationJob equivalent; the TrainJob's Complete/Failed conditions decide "
                  "a trial"});
  }
}

TEST_CASE("Katib grid over doubles keeps max when the steps reach it exactly", "[convert][katib]") {
  auto out = trainer::convert::convert_job(small(
      "", "grid",
      R"({name: lr, parameterType: double, feasibleSpace: {min: "0", max: "1", step: "0.1"}})"));
  REQUIRE(out);
  CHECK(out->objects.back().at("spec").at("parameters").at(0).at("searchSpace") ==
        json::parse(R"({"categorical": {"choices": ["0.0", "0.1", "0.2", "0.3", "0.4", "0.5",
                                                     "0.6", "0.7", "0.8", "0.9", "1.0"]}})"));
  auto too_many = trainer::convert::convert_job(
      small("", "grid", R"({name: num, parameterType: int, feasibleSpace: {min: "1", max: "3"}})"));
  REQUIRE_FALSE(too_many);
  CHECK(paths_of(too_many.error()) ==
        Strings{"spec.maxTrialCount: Invalid value: 4: grid search has 3 combinations; "
                "maxTrialCount must not exceed it"});
  auto reversed = trainer::convert::convert_job(
      small("", "grid", R"({name: num, parameterType: int, feasibleSpace: {min: "5", max: "1"}})"));
  REQUIRE_FALSE(reversed);
  CHECK(reversed.error().fields.at(0).path == "spec.parameters[0].feasibleSpace.max");
}

TEST_CASE("Katib bounds become Double text; a parameter in a template env value warns",
          "[convert][katib]") {
  json::value exp = small(
      "", "random", R"({name: lr, parameterType: double, feasibleSpace: {min: ".5", max: "2."}})");
  exp.at("spec").at("trialTemplate").at("trialSpec").at("spec").at("trainer").as_object()["env"] =
      json::parse(R"j([{"name": "LR", "value": "${trialParameters.lr}"}])j");
  auto out = trainer::convert::convert_job(exp);
  REQUIRE(out);
  CHECK(out->objects.back().at("spec").at("parameters").at(0).at("searchSpace") ==
        json::parse(R"({"uniform": {"min": "0.5", "max": "2.0", "type": "Float"}})"));
  CHECK(out->warnings ==
        Strings{"Experiment default/e: spec.trialTemplate.trialSpec.spec.trainer.env[0].value: "
                "\"$(KUBEFLOW_TRAINER_OPT_LR)\" refers to a trial parameter, which the trial's env "
                "defines after it, so Kubernetes leaves it unexpanded; use it in command or args"});
}

TEST_CASE("Katib Experiment with a PyTorchJob trial goes through the v1 conversion",
          "[convert][katib]") {
  auto out = trainer::convert::convert_job(yaml(R"(apiVersion: kubeflow.org/v1beta1
kind: Experiment
metadata: {name: pt, namespace: team}
spec:
  objective: {type: minimize, objectiveMetricName: loss}
  algorithm: {algorithmName: random}
  maxTrialCount: 2
  parallelTrialCount: 1
  parameters: [{name: lr, parameterType: double, feasibleSpace: {min: "0.1", max: "0.5"}}]
  trialTemplate:
    primaryContainerName: pytorch
    trialParameters: [{name: lr, reference: lr}]
    trialSpec:
      apiVersion: kubeflow.org/v1
      kind: PyTorchJob
      spec:
        pytorchReplicaSpecs:
          Master:
            replicas: 1
            template:
              spec:
                containers:
                - name: pytorch
                  image: pytorch:2
                  command: [python, train.py, "--lr=${trialParameters.lr}"]
)"));
  REQUIRE(out);
  REQUIRE_FALSE(out->objects.empty());
  const auto& opt = out->objects.back();
  CHECK(opt.at("kind") == "OptimizationJob");
  const std::string text = trainer::encode_yaml_stream(out->objects);
  CHECK(text.find("$(KUBEFLOW_TRAINER_OPT_LR)") != std::string::npos);
  CHECK(text.find("${trialParameters") == std::string::npos);
  auto adm = trainer::admit(out->objects, {}, trainer::AdmissionOptions{"", {}, nullptr, true});
  REQUIRE(adm);
  CHECK(adm->ok());
}

TEST_CASE("Katib's bayesianoptimization example converts to TPE with a warning; strict refuses",
          "[convert][katib]") {
  // Issue 19: refused, although it is the algorithm of Katib's own examples.
  const auto exp = experiment("bayesianoptimization.yaml");
  auto out = trainer::convert::convert_job(exp);
  REQUIRE(out);
  REQUIRE(out->objects.size() == 2);
  const auto& job = out->objects[1];
  CHECK(job.at("metadata").at("annotations").at("tuning.trainer.kubeflow.org/algorithm") == "tpe");
  // The budget, the objective and every parameter are kept.
  CHECK(trainer::encode_json(job.at("spec")) == trainer::encode_json(json::parse(R"j({
      "objectives": [{"metric": "Validation-accuracy", "direction": "Maximize"}],
      "searchAlgorithm": {"random": {"seed": 10}},
      "parameters": [
        {"name": "lr", "searchSpace": {"uniform": {"min": "0.01", "max": "0.03", "type": "Float"}}},
        {"name": "num-layers", "searchSpace": {"uniform": {"min": "2", "max": "5", "type": "Int"}}},
        {"name": "optimizer", "searchSpace": {"categorical": {"choices": ["sgd", "adam", "ftrl"]}}}],
      "numTrials": 12, "parallelTrials": 3,
      "trainJobTemplate": {"spec": {"runtimeRef": {"name": "bayesian-optimization-trial",
                                                   "kind": "TrainingRuntime"}}}})j")));
  // After the objective's two warnings (goal, additionalMetricNames), before
  // maxFailedTrialCount's.
  REQUIRE(out->warnings.size() == 4);
  CHECK(out->warnings[2] ==
        "Experiment kubeflow/bayesian-optimization: spec.algorithm.algorithmName: "
        "\"bayesianoptimization\" has no OptimizationJob equivalent; libtrainer's TPE searches "
        "instead (annotation tuning.trainer.kubeflow.org/algorithm: tpe): a Tree-structured "
        "Parzen Estimator models the objective where Katib fits a Gaussian process, so the "
        "trials differ");

  // The output is admitted, and its sampler is TPE.
  auto adm = trainer::admit(out->objects);
  REQUIRE(adm);
  CHECK(adm->ok());
  auto decoded = trainer::decode_optimization_job(job);
  REQUIRE(decoded);
  CHECK(trainer::tuning::make_sampler(decoded->object).has_value());

  trainer::convert::Options strict;
  strict.strict = true;
  auto refused = trainer::convert::convert_job(exp, strict);
  REQUIRE_FALSE(refused);
  REQUIRE(refused.error().fields.size() == 4);
  CHECK(refused.error().fields[2].path == "spec.algorithm.algorithmName");
}

TEST_CASE("Katib algorithms map to random, grid or TPE; what changes is a warning",
          "[convert][katib]") {
  struct Case {
    const char* katib;
    const char* sampler;  // the annotation, "" for none
    bool random;          // searchAlgorithm.random (else grid)
    const char* change;   // the warning's text after the value, "" for none
  };
  const std::vector<Case> cases = {
      {"random", "", true, ""},
      {"tpe", "tpe", true, ""},
      {"multivariate-tpe", "tpe", true,
       "has no OptimizationJob equivalent; libtrainer's TPE searches instead (annotation "
       "tuning.trainer.kubeflow.org/algorithm: tpe): it models each parameter on its own where "
       "Katib's multivariate TPE models them jointly, so the trials differ"},
      {"cmaes", "tpe", true,
       "has no OptimizationJob equivalent; libtrainer's TPE searches instead (annotation "
       "tuning.trainer.kubeflow.org/algorithm: tpe): a Tree-structured Parzen Estimator models "
       "the objective where Katib adapts a covariance matrix (CMA-ES), so the trials differ"},
      {"sobol", "", true,
       "has no OptimizationJob equivalent; random search runs instead: independent uniform "
       "draws where Katib follows a Sobol low-discrepancy sequence, so the trials cover the "
       "space less evenly"},
  };
  for (const auto& c : cases) {
    INFO(c.katib);
    const std::string settings = R"(
  algorithm:
    algorithmName: )" + std::string(c.katib) +
                                 R"(
    algorithmSettings: [{name: random_state, value: "7"}, {name: gamma, value: "0.3"}]
)";
    auto exp = small("");
    auto overlay = trainer::parse_documents("spec:" + settings);
    REQUIRE(overlay);
    exp.at("spec").as_object()["algorithm"] = overlay->front().at("spec").at("algorithm");
    auto out = trainer::convert::convert_job(exp);
    INFO((out ? std::string() : out.error().message));
    REQUIRE(out);
    const auto& job = out->objects.back();
    const auto* annotations = job.at("metadata").as_object().if_contains("annotations");
    const auto* sampler =
        annotations != nullptr
            ? annotations->as_object().if_contains("tuning.trainer.kubeflow.org/algorithm")
            : nullptr;
    CHECK((sampler != nullptr ? std::string(sampler->as_string()) : std::string()) == c.sampler);
    CHECK(job.at("spec").at("searchAlgorithm").at("random").at("seed") == 7);
    CHECK(job.at("spec").at("numTrials") == 4);
    CHECK(job.at("spec").at("parameters").as_array().size() == 1);
    Strings expected;
    if (*c.change != '\0') {
      expected.push_back("Experiment default/e: spec.algorithm.algorithmName: \"" +
                         std::string(c.katib) + "\" " + c.change);
    }
    // Settings beyond the seed have no counterpart: TPE's are fixed.
    expected.push_back(
        std::string("Experiment default/e: spec.algorithm.algorithmSettings[1]: "
                    "{\"name\":\"gamma\",\"value\":\"0.3\"} ") +
        (std::string(c.sampler) == "tpe"
             ? "has no OptimizationJob equivalent; libtrainer's TPE settings are fixed "
               "(docs/tuning.md)"
             : "has no OptimizationJob equivalent; it is dropped"));
    CHECK(out->warnings == expected);
  }
}
