// SPDX-License-Identifier: Apache-2.0
// trainer.hpp, the C++ wrapper over the C ABI. This binary links libtrainer.so only (plus the
// wrapper's public dependencies), so everything here goes through the C ABI.
#include "capi_all_headers.hpp"

#include "cpp_wrapper_second_tu.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>

namespace {

using trainer::ErrorCode;
using trainer::FieldErrorType;
using trainer::abi::Document;
using trainer::abi::DocumentList;
using trainer::abi::Format;

static_assert(!std::is_copy_constructible_v<DocumentList>);
static_assert(!std::is_copy_assignable_v<DocumentList>);
static_assert(std::is_nothrow_move_constructible_v<DocumentList>);
static_assert(std::is_nothrow_move_assignable_v<DocumentList>);
static_assert(std::is_same_v<decltype(DocumentList::parse("")), trainer::Result<DocumentList>>);

constexpr const char* kJobAndRuntime = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: pytorch-job
  namespace: team-a
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
    surprise: true
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch-distributed
  labels:
    trainer.kubeflow.org/support: deprecated
spec:
  mlPolicy:
    torch: {}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: pytorch:2.5
)";

constexpr const char* kDeprecationUrl =
    "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html"
    "#runtime-deprecation-policy";

DocumentList parse_ok(std::string_view text) {
  auto list = DocumentList::parse(text);
  INFO((list ? std::string() : list.error().message));
  REQUIRE(list.has_value());
  return std::move(*list);
}

}  // namespace

TEST_CASE("version and features come from the library", "[capi][cpp]") {
  CHECK(trainer::abi::version_number() == TRAINER_VERSION_NUMBER);
  CHECK(trainer::abi::version_string() == TRAINER_VERSION_STRING);
  const auto features = trainer::abi::features();
  CHECK((features & ~(TRAINER_FEATURE_MPI | TRAINER_FEATURE_NCCL)) == 0U);
  CHECK(trainer::abi::has_feature(0));
  CHECK(trainer::abi::has_feature(TRAINER_FEATURE_MPI) == ((features & TRAINER_FEATURE_MPI) != 0));
  CHECK(trainer::abi::status_name(TRAINER_E_LIMIT) == "TRAINER_E_LIMIT");
  CHECK(trainer::abi::status_name(12345) == "TRAINER_E_?");
}

TEST_CASE("field error types map from their Go names", "[capi][cpp]") {
  const FieldErrorType all[] = {FieldErrorType::kNotFound,     FieldErrorType::kRequired,
                                FieldErrorType::kDuplicate,    FieldErrorType::kInvalid,
                                FieldErrorType::kNotSupported, FieldErrorType::kForbidden,
                                FieldErrorType::kTooLong,      FieldErrorType::kTooMany,
                                FieldErrorType::kInternal,     FieldErrorType::kTypeInvalid};
  const char* names[] = {"FieldValueNotFound",   "FieldValueRequired",     "FieldValueDuplicate",
                         "FieldValueInvalid",    "FieldValueNotSupported", "FieldValueForbidden",
                         "FieldValueTooLong",    "FieldValueTooMany",      "InternalError",
                         "FieldValueTypeInvalid"};
  for (std::size_t i = 0; i < std::size(all); ++i) {
    CHECK(trainer::abi::field_error_type_from_go_name(names[i]) == all[i]);
  }
  CHECK(trainer::abi::field_error_type_from_go_name("SomethingNew") == FieldErrorType::kInternal);
}

TEST_CASE("to_error without an error object keeps the status", "[capi][cpp]") {
  const trainer::Error e = trainer::abi::to_error(nullptr, TRAINER_E_NOMEM);
  CHECK(e.code == ErrorCode::kNoMemory);
  CHECK(e.message == "libtrainer call failed with TRAINER_E_NOMEM");
  CHECK(e.fields.empty());
  const trainer::Error e2 = second_tu_to_error(nullptr, TRAINER_E_IO);
  CHECK(e2.code == ErrorCode::kIo);
}

TEST_CASE("documents parse, default, encode", "[capi][cpp]") {
  DocumentList list = parse_ok(kJobAndRuntime);
  REQUIRE(list.size() == 2);
  CHECK_FALSE(list.empty());
  Document job = list[0];
  CHECK(job.kind() == "TrainJob");
  CHECK(job.api_version() == "trainer.kubeflow.org/v1alpha1");
  CHECK(job.name() == "pytorch-job");
  CHECK(job.namespace_() == "team-a");
  CHECK(job.warnings() == std::vector<std::string>{"unknown field \"spec.trainer.surprise\""});
  CHECK(list[1].namespace_().empty());
  CHECK(list[1].warnings().empty());

  REQUIRE(job.apply_defaults().has_value());
  auto json = job.encode();
  REQUIRE(json.has_value());
  CHECK(*json ==
        R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",)"
        R"("metadata":{"name":"pytorch-job","namespace":"team-a"},)"
        R"("spec":{"runtimeRef":{"name":"torch-distributed","apiGroup":"trainer.kubeflow.org",)"
        R"("kind":"ClusterTrainingRuntime"},"trainer":{"numNodes":2},"suspend":false,)"
        R"("managedBy":"trainer.kubeflow.org/trainjob-controller"}})");

  // The same through another translation unit.
  auto other = second_tu_round_trip(kJobAndRuntime);
  REQUIRE(other.has_value());
  CHECK(*other == *json);

  auto yaml = job.encode(Format::kYaml);
  REQUIRE(yaml.has_value());
  DocumentList again = parse_ok(*yaml);
  REQUIRE(again.size() == 1);
  auto again_json = again[0].encode();
  REQUIRE(again_json.has_value());
  CHECK(*again_json == *json);

  auto pretty = job.encode(Format::kJsonPretty);
  REQUIRE(pretty.has_value());
  CHECK(pretty->rfind("{\n  \"apiVersion\": ", 0) == 0);

  auto bad_format = job.encode(static_cast<Format>(7));
  REQUIRE_FALSE(bad_format.has_value());
  CHECK(bad_format.error().code == ErrorCode::kInvalidArgument);
  CHECK(bad_format.error().message == "trainer_document_encode: unknown format 7");

  // documents() lists every document; moving the list keeps them valid.
  auto docs = list.documents();
  REQUIRE(docs.size() == 2);
  DocumentList moved = std::move(list);
  CHECK(docs[1].kind() == "ClusterTrainingRuntime");
  CHECK(moved.size() == 2);
  CHECK(moved.raw() != nullptr);
  CHECK(list.raw() == nullptr);  // NOLINT(bugprone-use-after-move): moved-from state is empty
  CHECK(docs[0].raw() == moved[0].raw());
}

TEST_CASE("validation reports warnings, rejections and unsupported kinds", "[capi][cpp]") {
  DocumentList list = parse_ok(kJobAndRuntime);
  Document job = list[0];
  Document runtime = list[1];
  REQUIRE(job.apply_defaults().has_value());
  REQUIRE(runtime.apply_defaults().has_value());

  auto result = job.validate(&list);
  REQUIRE(result.has_value());
  CHECK(result->ok());
  CHECK(result->warnings ==
        std::vector<std::string>{
            std::string("Referenced ClusterTrainingRuntime \"torch-distributed\" is deprecated "
                        "and will be removed in a future release of Kubeflow Trainer. See "
                        "runtime deprecation policy: ") +
            kDeprecationUrl});

  // Without context the runtime is not among the inputs: a warning says so.
  auto without_context = job.validate();
  REQUIRE(without_context.has_value());
  CHECK(without_context->ok());
  CHECK(without_context->warnings ==
        std::vector<std::string>{
            "TrainJob team-a/pytorch-job references ClusterTrainingRuntime "
            "\"torch-distributed\", which is not among the inputs: the TrainJob was not checked "
            "against it; \"torch-distributed\" is a built-in ClusterTrainingRuntime of libtrainer: "
            "add --builtin-runtimes (trainerctl) or set the builtin_runtimes option to use it"});

  DocumentList bad = parse_ok(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: job
spec:
  runtimeRef:
    name: torch
  trainer:
    numProcPerNode: 0
)");
  Document bad_job = bad[0];
  REQUIRE(bad_job.apply_defaults().has_value());
  auto rejected = bad_job.validate();
  REQUIRE(rejected.has_value());
  REQUIRE_FALSE(rejected->ok());
  const trainer::Error& error = *rejected->error;
  CHECK(error.code == ErrorCode::kInvalid);
  REQUIRE(error.fields.size() == 1);
  CHECK(error.fields[0].type == FieldErrorType::kInvalid);
  CHECK(error.fields[0].path == "spec.trainer.numProcPerNode");
  CHECK(error.fields[0].detail == "numProcPerNode must be greater than or equal to 1");
  REQUIRE(error.fields[0].value.has_value());
  // The message is the field error's full text; its value part is the field value.
  CHECK(error.message.rfind("spec.trainer.numProcPerNode: Invalid value: ", 0) == 0);
  CHECK(error.message.size() > error.fields[0].detail.size());

  DocumentList other = parse_ok(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}})");
  auto unsupported = other[0].validate(&list);
  REQUIRE_FALSE(unsupported.has_value());
  CHECK(unsupported.error().code == ErrorCode::kUnsupported);
}

TEST_CASE("parse failures become trainer::Error values", "[capi][cpp]") {
  SECTION("type error with a field path") {
    auto list = DocumentList::parse(R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: job
spec:
  runtimeRef:
    name: torch
  trainer:
    numNodes: two
)");
    REQUIRE_FALSE(list.has_value());
    const trainer::Error& e = list.error();
    CHECK(e.code == ErrorCode::kParse);
    CHECK(e.message == "spec.trainer.numNodes: Invalid value: \"two\": expected int32");
    REQUIRE(e.fields.size() == 1);
    CHECK(e.fields[0].type == FieldErrorType::kTypeInvalid);
    CHECK(e.fields[0].path == "spec.trainer.numNodes");
    CHECK(e.fields[0].value == boost::json::value("two"));
    CHECK(e.fields[0].detail == "expected int32");
  }
  SECTION("malformed YAML") {
    auto list = DocumentList::parse("a: [1, 2\n");
    REQUIRE_FALSE(list.has_value());
    CHECK(list.error().code == ErrorCode::kParse);
    CHECK_FALSE(list.error().message.empty());
  }
  SECTION("limit") {
    trainer::abi::ParseOptions options;
    options.max_documents = 1;
    auto list = DocumentList::parse("a: 1\n---\nb: 2\n", options);
    REQUIRE_FALSE(list.has_value());
    CHECK(list.error().code == ErrorCode::kLimit);
  }
  SECTION("alias byte limit") {
    // An 8-byte anchored scalar and three aliases: 32 bytes of copies.
    const std::string_view text = "a: &x abcdefgh\nb: [*x, *x, *x]\n";
    trainer::abi::ParseOptions options;
    CHECK(DocumentList::parse(text, options).has_value());  // 0: the default, 4 MiB
    options.max_alias_bytes = 16;
    auto list = DocumentList::parse(text, options);
    REQUIRE_FALSE(list.has_value());
    CHECK(list.error().code == ErrorCode::kLimit);
    CHECK(list.error().message ==
          "yaml: line 2, column 9: b[1]: anchors and aliases copy more than max_alias_bytes (16) "
          "bytes of scalar text");
    options.max_alias_bytes = 32;
    CHECK(DocumentList::parse(text, options).has_value());
    // render reads the same options
    trainer::abi::RenderOptions render_options;
    render_options.parse.max_alias_bytes = 16;
    auto rendered = trainer::abi::render(text, render_options);
    REQUIRE_FALSE(rendered.has_value());
    CHECK(rendered.error().code == ErrorCode::kLimit);
    CHECK(rendered.error().message.find("max_alias_bytes (16)") != std::string::npos);
  }
  SECTION("empty input is an empty list") {
    DocumentList list = parse_ok("");
    CHECK(list.empty());
    CHECK(list.documents().empty());
  }
}

TEST_CASE("release hands the C handle over", "[capi][cpp]") {
  DocumentList list = parse_ok("kind: A\n");
  trainer_document_list* raw = list.release();
  CHECK(list.raw() == nullptr);
  CHECK(list.size() == 0);
  REQUIRE(raw != nullptr);
  CHECK(trainer_document_list_count(raw) == 1);
  DocumentList adopted(raw);
  CHECK(adopted[0].kind() == "A");
}

TEST_CASE("render returns the objects, warnings and encodings", "[capi][cpp][render]") {
  static_assert(!std::is_copy_constructible_v<trainer::abi::RenderResult>);
  static_assert(std::is_nothrow_move_constructible_v<trainer::abi::RenderResult>);
  trainer::abi::RenderOptions options;
  options.uid = "0b7c3f1e-9d2a-4c4b-8e6f-1a2b3c4d5e6f";
  options.now = "2025-01-01T00:00:00Z";
  auto result = trainer::abi::render(kJobAndRuntime, options);
  INFO((result ? std::string() : result.error().message));
  REQUIRE(result);
  REQUIRE(result->size() == 2);
  const auto objects = result->objects();
  CHECK(objects[0].kind == "ConfigMap");
  CHECK(objects[0].name == "pytorch-job-runtime-snapshot");
  CHECK(objects[1].kind == "JobSet");
  CHECK(objects[1].api_version == "jobset.x-k8s.io/v1alpha2");
  CHECK(objects[1].name == "pytorch-job");
  CHECK(objects[1].namespace_ == "team-a");
  const auto jobset = boost::json::parse(objects[1].json);
  CHECK(jobset.at_pointer("/metadata/ownerReferences/0/uid") == options.uid.c_str());
  // the TrainJob's unknown field, and the deprecated runtime (its own webhook and the TrainJob's)
  const auto warnings = result->warnings();
  REQUIRE(warnings.size() == 3);
  CHECK(std::count_if(warnings.begin(), warnings.end(), [](const std::string& w) {
          return w.find("unknown field \"spec.trainer.surprise\"") != std::string::npos;
        }) == 1);
  CHECK(std::count_if(warnings.begin(), warnings.end(), [](const std::string& w) {
          return w.find("\"torch-distributed\" is deprecated") != std::string::npos;
        }) == 2);
  CHECK(result->skipped_reason().empty());

  auto yaml = result->encode();
  REQUIRE(yaml);
  CHECK(yaml->find("\n---\n") != std::string::npos);
  auto list = result->encode(Format::kJson);
  REQUIRE(list);
  const auto parsed = boost::json::parse(*list);
  CHECK(parsed.at("kind") == "List");
  CHECK(parsed.at("items").as_array().size() == 2);
}

TEST_CASE("render failures become trainer::Error values", "[capi][cpp][render]") {
  std::string negative = kJobAndRuntime;
  negative.replace(negative.find("numNodes: 2"), 11, "numNodes: -1");
  auto rejected = trainer::abi::render(negative);
  REQUIRE_FALSE(rejected);
  CHECK(rejected.error().code == ErrorCode::kInvalid);
  REQUIRE(rejected.error().fields.size() == 1);
  CHECK(rejected.error().fields[0].path == "spec.trainer.numNodes");
  CHECK(rejected.error().fields[0].type == FieldErrorType::kInvalid);

  trainer::abi::RenderOptions bad_gate;
  bad_gate.feature_gates = "Nope=true";
  auto refused = trainer::abi::render(kJobAndRuntime, bad_gate);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ErrorCode::kInvalidArgument);

  const std::string job_only =
      std::string(kJobAndRuntime).substr(0, std::string(kJobAndRuntime).find("---"));
  auto missing = trainer::abi::render(job_only);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ErrorCode::kNotFound);
}
