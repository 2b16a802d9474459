// SPDX-License-Identifier: Apache-2.0
//
// The JSON front end of parse_documents on inputs fuzzing found (tests/fuzz/seeds/fuzz_json/
// keeps each as a fuzz regression input too).
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <string>

using trainer::ErrorCode;
using trainer::parse_documents;
using trainer::test::json;
using trainer::test::one_doc;

TEST_CASE("JSON numbers beyond the float64 range are refused", "[json]") {
  // Boost.JSON reads them as infinity, which encode_json then wrote as null (fuzz_json).
  for (const std::string number : {"1e400", "-1E400", "1.5e309"}) {
    auto r = parse_documents("{\"a\": [1, " + number + "]}");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kParse);
    CHECK(r.error().message == "json: line 1, column " + std::to_string(11 + number.size()) +
                                   ": number " + number + " is out of the range of a float64");
  }
  // An exponent Boost.JSON cannot hold is its own parse error.
  auto huge = parse_documents("{\"a\": 1e99999999999}");
  REQUIRE_FALSE(huge);
  CHECK(huge.error().message == "json: line 1, column 18: exponent overflow");
  // Underflow is zero, and the largest double is a number, as in Go.
  CHECK(one_doc("{\"a\": 1e-400}") == json(R"({"a": 0.0})"));
  CHECK(one_doc("{\"a\": 1.7976931348623157e308}").at("a").as_double() == 1.7976931348623157e308);
  // A YAML scalar out of range stays a string (docs/yaml.md), as go-yaml keeps it.
  CHECK(one_doc("a: 1e400\n") == json(R"({"a": "1e400"})"));
}

TEST_CASE("JSON strings and keys with NUL are refused with the field path", "[json]") {
  // As in YAML (docs/yaml.md). encode_yaml wrote "\x00", which parse_documents then refused
  // (fuzz_json).
  const auto refused = [](std::string_view text, const std::string& message) {
    auto r = parse_documents(text);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kParse);
    CHECK(r.error().message == message);
  };
  refused(R"({"a": "x\u0000y"})",
          "json: line 1, column 16: a: the string contains a NUL character, which is not allowed");
  refused(R"({"key\u0000": "v"})",
          "json: line 1, column 12: an object key contains a NUL character, which is not allowed");
  refused(R"({"spec": {"containers": [{"name": "a"}, {"name": "b", "args": ["x", "\u0000"]}]}})",
          "json: line 1, column 76: spec.containers[1].args[1]: the string contains a NUL "
          "character, which is not allowed");
  refused(R"({"a": [1, {"b": {}}, {"c\u0000": 1}]})",
          "json: line 1, column 31: a[2]: an object key contains a NUL character, which is not "
          "allowed");
  refused(R"(["\u0000"])",
          "json: line 1, column 9: [0]: the string contains a NUL character, which is not allowed");
  // Other control characters are text like any other.
  CHECK(one_doc(R"({"a": "\u0001"})").at("a").as_string() == "\x01");
}

TEST_CASE("JSON numbers are read as the correctly rounded double, as in YAML", "[json]") {
  // Boost.JSON read this 49-digit number one ulp off; encode_json's shortest text of that value
  // then read back as another double (fuzz_json).
  const std::string digits = "1234567890922337203685477580812345678901234567890";
  const double want = 1.2345678909223373e+48;  // Go's ParseFloat and Python's float()
  CHECK(one_doc("{\"a\": " + digits + "}").at("a").as_double() == want);
  CHECK(one_doc("a: " + digits + "\n").at("a").as_double() == want);
  CHECK(one_doc("{\"a\": 1.2345678909223373e+48}").at("a").as_double() == want);
  CHECK(one_doc(R"({"a": 0.1, "b": -2.5e-3, "c": 5e-324})") ==
        json(R"({"a": 0.1, "b": -0.0025, "c": 5e-324})"));
}
