// SPDX-License-Identifier: Apache-2.0
//
// Every plain-scalar rule of docs/yaml.md, checked through parse_documents.
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <cstdint>

using trainer::test::json;
using trainer::test::one_doc;

namespace {

boost::json::value scalar(const std::string& text) {
  return one_doc("v: " + text + "\n").at("v");
}

}  // namespace

TEST_CASE("plain null forms resolve to null", "[yaml][scalar]") {
  for (const char* s : {"~", "null", "Null", "NULL"}) CHECK(scalar(s).is_null());
  CHECK(one_doc("v:\n").at("v").is_null());
  CHECK(scalar("nil") == "nil");
  CHECK(scalar("NuLL") == "NuLL");
}

TEST_CASE("YAML 1.1 booleans that go-yaml v2 accepts", "[yaml][scalar]") {
  for (const char* s : {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"}) {
    INFO(s);
    CHECK(scalar(s) == true);
  }
  for (const char* s :
       {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"}) {
    INFO(s);
    CHECK(scalar(s) == false);
  }
  for (const char* s : {"yEs", "tRUE", "oN", "oFF", "nO"}) {
    INFO(s);
    CHECK(scalar(s) == s);
  }
}

TEST_CASE("integers: decimal, hex, octal, binary, underscores, signs", "[yaml][scalar]") {
  CHECK(scalar("29500") == 29500);
  CHECK(scalar("-7") == -7);
  CHECK(scalar("+7") == 7);
  CHECK(scalar("0x1F") == 31);
  CHECK(scalar("0X1f") == 31);
  CHECK(scalar("-0x10") == -16);
  CHECK(scalar("0o17") == 15);
  CHECK(scalar("017") == 15);
  CHECK(scalar("0b101") == 5);
  CHECK(scalar("1_000_000") == 1000000);
  CHECK(scalar("0") == 0);
  CHECK(scalar("9223372036854775807") == INT64_MAX);
  CHECK(scalar("-9223372036854775808") == INT64_MIN);
  // Over int64: ParseUint takes it when unsigned...
  const auto big = scalar("18446744073709551615");
  REQUIRE(big.is_uint64());
  CHECK(big.get_uint64() == UINT64_MAX);
  // ...and the float rule when signed or larger than uint64.
  // Go marshals the float64 -9223372036854775808.0 back as that integer.
  CHECK(scalar("-9223372036854775809") == INT64_MIN);
  CHECK(scalar("18446744073709551616").is_double());
  // "08" is not octal; the float rule reads 8.0, which JSON carries as the integer 8.
  CHECK(scalar("08") == 8);
  CHECK(scalar("0x") == "0x");
  CHECK(scalar("0xZZ") == "0xZZ");
  CHECK(scalar("1.2.3") == "1.2.3");
  CHECK(scalar("12:30") == "12:30");
  CHECK(scalar("-x") == "-x");
}

TEST_CASE("floats, and integral floats becoming integers", "[yaml][scalar]") {
  CHECK(scalar("1.5") == 1.5);
  CHECK(scalar("-2.25") == -2.25);
  CHECK(scalar(".5") == 0.5);
  CHECK(scalar("1.") == 1);
  CHECK(scalar("1e3") == 1000);
  CHECK(scalar("1e3").is_int64());
  CHECK(scalar("2.5e-1") == 0.25);
  CHECK(scalar("1e21").is_double());
  CHECK(scalar("1_0.5") == 10.5);
  // Out of double range: go-yaml's ParseFloat fails and the scalar stays a string.
  CHECK(scalar("1e400") == "1e400");
  CHECK(scalar("1e-400") == 0);
  CHECK(scalar("0x1p3") == "0x1p3");
  CHECK(scalar(".5_0") == ".5_0");
  CHECK(scalar("inf") == "inf");
  CHECK(scalar("NaN") == "NaN");
}

TEST_CASE(".inf and .nan cannot be represented in JSON", "[yaml][scalar]") {
  for (const char* s : {".inf", ".Inf", ".INF", "+.inf", "-.inf", "-.INF", ".nan", ".NaN"}) {
    INFO(s);
    auto r = trainer::parse_documents(std::string("v: ") + s + "\n");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == trainer::ErrorCode::kParse);
    CHECK(r.error().message ==
          std::string("yaml: line 1, column 4: the float ") + s + " cannot be represented in JSON");
  }
  // Quoted, it is just a string.
  CHECK(one_doc("v: '.inf'\n").at("v") == ".inf");
}

TEST_CASE("quoted and block scalars are always strings", "[yaml][scalar]") {
  const auto doc =
      one_doc("a: \"29500\"\nb: 'true'\nc: \"\"\nd: '~'\ne: |\n  10\nf: >\n  yes\n  no\n");
  CHECK(doc == json(R"({"a":"29500","b":"true","c":"","d":"~","e":"10\n","f":"yes no\n"})"));
}

TEST_CASE("timestamps stay strings", "[yaml][scalar]") {
  CHECK(scalar("2024-01-01") == "2024-01-01");
  CHECK(scalar("2024-01-01T10:00:00Z") == "2024-01-01T10:00:00Z");
}

TEST_CASE("explicit core tags", "[yaml][scalar]") {
  const auto doc =
      one_doc("a: !!str 1\nb: !!int 0x10\nc: !!bool yes\nd: !!float 1.5\ne: !!null ~\n");
  CHECK(doc == json(R"({"a":"1","b":16,"c":true,"d":1.5,"e":null})"));
  auto bad = trainer::parse_documents("a: !!int abc\n");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "yaml: line 1, column 4: cannot decode abc as !!int");
  auto custom = trainer::parse_documents("a: !custom 1\n");
  REQUIRE_FALSE(custom);
  CHECK(custom.error().message == "yaml: line 1, column 4: unsupported tag !custom");
}

TEST_CASE("map keys are resolved then written as JSON strings", "[yaml][scalar]") {
  // sigs.k8s.io/yaml turns int and bool keys into their text; `y`/`n` are booleans in YAML 1.1.
  CHECK(one_doc("1: a\n0x10: b\ny: c\nn: d\n\"yes\": e\n") ==
        json(R"({"1":"a","16":"b","true":"c","false":"d","yes":"e"})"));
  auto dup = trainer::parse_documents("true: a\ny: b\n");
  REQUIRE_FALSE(dup);
  CHECK(dup.error().message == "yaml: line 2, column 1: duplicate key \"true\" in map");
}
