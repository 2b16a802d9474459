// SPDX-License-Identifier: Apache-2.0
#include "trainer/error.hpp"

#include <catch2/catch.hpp>

using trainer::FieldError;

TEST_CASE("field errors render like Kubernetes field.Error", "[error]") {
  CHECK(trainer::field_invalid("spec.trainer.numNodes", -1, "must be greater than or equal to 0")
            .to_string() ==
        "spec.trainer.numNodes: Invalid value: -1: must be greater than or equal to 0");
  CHECK(trainer::field_invalid("metadata.name", "Bad", "must match").to_string() ==
        "metadata.name: Invalid value: \"Bad\": must match");
  CHECK(trainer::field_required("spec.runtimeRef.name", "").to_string() ==
        "spec.runtimeRef.name: Required value");
  CHECK(trainer::field_forbidden("spec.runtimePatches", "can only be modified when suspended")
            .to_string() == "spec.runtimePatches: Forbidden: can only be modified when suspended");
  CHECK(
      trainer::field_not_supported("spec.mlPolicy.mpi.mpiImplementation", "Intel", {"OpenMPI", ""})
          .to_string() ==
      "spec.mlPolicy.mpi.mpiImplementation: Unsupported value: \"Intel\": supported values: "
      "\"OpenMPI\", \"\"");
  CHECK(trainer::field_too_many("spec.runtimePatches", 17, 16).to_string() ==
        "spec.runtimePatches: Too many: 17: must have at most 16 items");
  CHECK(trainer::field_too_long("spec.managedBy", "x", 253).to_string() ==
        "spec.managedBy: Too long: may not be more than 253 bytes");
  CHECK(trainer::field_invalid("spec.x", boost::json::value(nullptr), "").to_string() ==
        "spec.x: Invalid value: null");
  FieldError omitted{trainer::FieldErrorType::kInvalid, "spec.y", std::nullopt, "bad"};
  CHECK(omitted.to_string() == "spec.y: Invalid value: bad");
  CHECK(trainer::field_invalid("a", "line\n\"q\"", "d").to_string() ==
        "a: Invalid value: \"line\\n\\\"q\\\"\": d");
}

TEST_CASE("an invalid Error aggregates its field errors like ToAggregate", "[error]") {
  auto one = trainer::Error::invalid({trainer::field_required("a", "")});
  CHECK(one.code == trainer::ErrorCode::kInvalid);
  CHECK(one.message == "a: Required value");
  auto two = trainer::Error::invalid(
      {trainer::field_required("a", ""), trainer::field_invalid("b", 1, "too small")});
  CHECK(two.message == "[a: Required value, b: Invalid value: 1: too small]");
  CHECK(two.fields.size() == 2);
  CHECK(std::string(trainer::go_name(trainer::FieldErrorType::kTooMany)) == "FieldValueTooMany");
}

TEST_CASE("go_quote escapes like Go's %q", "[error]") {
  using trainer::go_quote;
  CHECK(go_quote("") == "\"\"");
  CHECK(go_quote("high-priority") == "\"high-priority\"");
  CHECK(go_quote("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(go_quote("l1\nl2\tx\r") == "\"l1\\nl2\\tx\\r\"");
  CHECK(go_quote(std::string("\x01\x1f\x7f", 3)) == "\"\\x01\\x1f\\x7f\"");
  CHECK(go_quote("gr\xc3\xbc\xc3\x9f") == "\"gr\xc3\xbc\xc3\x9f\"");  // UTF-8 stays as it is
}
