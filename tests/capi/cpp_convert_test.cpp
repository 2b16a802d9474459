// SPDX-License-Identifier: Apache-2.0
//
// trainer.hpp's converter (abi::convert) over libtrainer.so, and with it the C ABI of
// trainer/convert.h: a Training Operator v1 PyTorchJob becomes a TrainJob with a warning naming
// the v1 field Trainer v2 cannot express; strict, pass-through, malformed input, bad options.
#include "trainer.hpp"

#include <catch2/catch.hpp>

#include <boost/json/value.hpp>

#include <string>

namespace {

namespace abi = trainer::abi;
using trainer::ErrorCode;

// cleanPodPolicy: All has no Trainer v2 equivalent.
constexpr const char* kPyTorchJob = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: pt
spec:
  runPolicy:
    cleanPodPolicy: All
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: docker.io/library/busybox:1.36
              command: [sh, -c, echo $RANK]
    Worker:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: docker.io/library/busybox:1.36
              command: [sh, -c, echo $RANK]
)";

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

}  // namespace

TEST_CASE("abi::convert turns a PyTorchJob into a TrainJob with a warning") {
  abi::ConvertOptions options;
  options.namespace_ = "team-cpp";
  auto result = abi::convert(kPyTorchJob, options);
  REQUIRE(result);
  const auto objects = result->objects();
  REQUIRE(objects.size() == result->size());
  const boost::json::object* train_job = nullptr;
  for (const auto& object : objects) {
    const auto& o = object.as_object();
    CHECK(o.at("kind") != "PyTorchJob");
    if (o.at("kind") == "TrainJob") train_job = &o;
  }
  REQUIRE(train_job != nullptr);
  CHECK(train_job->at("apiVersion") == "trainer.kubeflow.org/v1alpha1");
  CHECK(train_job->at("metadata").at("name") == "pt");
  CHECK(train_job->at("metadata").at("namespace") == "team-cpp");
  CHECK(contains(result->text(), "kind: TrainJob"));
  const auto warnings = result->warnings();
  bool found = false;
  for (const auto& w : warnings) found = found || contains(w, "spec.runPolicy.cleanPodPolicy");
  CHECK(found);

  options.format = abi::Format::kJson;
  auto json = abi::convert(kPyTorchJob, options);
  REQUIRE(json);
  CHECK(contains(json->text(), R"({"apiVersion":"v1","kind":"List","items":[)"));
}

TEST_CASE("abi::convert with strict fails with the warnings' field paths") {
  abi::ConvertOptions options;
  options.strict = true;
  auto result = abi::convert(kPyTorchJob, options);
  REQUIRE_FALSE(result);
  CHECK(result.error().code == ErrorCode::kInvalid);
  bool found = false;
  for (const auto& f : result.error().fields) {
    found = found || contains(f.path, "spec.runPolicy.cleanPodPolicy");
  }
  CHECK(found);
}

TEST_CASE("abi::convert keeps other documents and refuses malformed input") {
  auto kept = abi::convert("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n");
  REQUIRE(kept);
  REQUIRE(kept->size() == 1);
  CHECK(contains(kept->json(0), R"("name":"keep")"));
  CHECK(kept->warnings().empty());
  CHECK(kept->json(1).empty());  // out of range: NULL, viewed as ""

  auto broken = abi::convert("a: [");
  REQUIRE_FALSE(broken);
  CHECK(broken.error().code == ErrorCode::kParse);
}

TEST_CASE("trainer_convert's argument errors") {
  trainer_convert_result* out = nullptr;
  trainer_error* err = nullptr;
  CHECK(trainer_convert("x", 1, nullptr, nullptr, &err) == TRAINER_E_INVALID_ARGUMENT);
  trainer_error_free(err);
  CHECK(trainer_convert(nullptr, 3, nullptr, &out, &err) == TRAINER_E_INVALID_ARGUMENT);
  CHECK(out == nullptr);
  trainer_error_free(err);
  trainer_convert_options opts = TRAINER_CONVERT_OPTIONS_INIT;
  opts.format = 7;
  CHECK(trainer_convert("", 0, &opts, &out, &err) == TRAINER_E_INVALID_ARGUMENT);
  trainer_error_free(err);
  opts.version = TRAINER_CONVERT_OPTIONS_VERSION + 1;
  CHECK(trainer_convert("", 0, &opts, &out, &err) == TRAINER_E_INVALID_ARGUMENT);
  trainer_error_free(err);
  CHECK(trainer_convert_options_init(&opts, 0) == TRAINER_E_INVALID_ARGUMENT);
  REQUIRE(trainer_convert_options_init(&opts, TRAINER_CONVERT_OPTIONS_VERSION) == TRAINER_OK);
  CHECK(opts.format == TRAINER_FORMAT_YAML);
  // An empty input converts to nothing.
  REQUIRE(trainer_convert("", 0, &opts, &out, &err) == TRAINER_OK);
  CHECK(trainer_convert_result_count(out) == 0);
  CHECK(std::string(trainer_convert_result_text(out)).empty());
  trainer_convert_result_free(out);
  // NULL results: the accessors' documented answers.
  CHECK(trainer_convert_result_count(nullptr) == 0);
  CHECK(std::string(trainer_convert_result_text(nullptr)).empty());
  CHECK(trainer_convert_result_json(nullptr, 0) == nullptr);
  CHECK(trainer_convert_result_warning(nullptr, 0) == nullptr);
  trainer_convert_result_free(nullptr);
}
