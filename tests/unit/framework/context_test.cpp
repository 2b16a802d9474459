// SPDX-License-Identifier: Apache-2.0
// Feature gate text and the system render context.
#include "trainer/render.hpp"

#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <string>

namespace {

using trainer::ErrorCode;

TEST_CASE("feature gates parse upstream's --feature-gates syntax", "[framework][gates]") {
  SECTION("empty text: every gate off") {
    auto gates = trainer::parse_feature_gates("");
    REQUIRE(gates);
    CHECK_FALSE(gates->trainjob_status);
    CHECK_FALSE(trainer::parse_feature_gates(" , ,")->trainjob_status);
  }
  SECTION("Go ParseBool spellings") {
    for (const char* on : {"true", "True", "TRUE", "t", "T", "1"}) {
      auto gates = trainer::parse_feature_gates(std::string("TrainJobStatus=") + on);
      REQUIRE(gates);
      CHECK(gates->trainjob_status);
    }
    for (const char* off : {"false", "False", "FALSE", "f", "F", "0"}) {
      auto gates = trainer::parse_feature_gates(std::string("TrainJobStatus=") + off);
      REQUIRE(gates);
      CHECK_FALSE(gates->trainjob_status);
    }
  }
  SECTION("later items win, spaces around items and around '=' are ignored") {
    auto gates = trainer::parse_feature_gates(" TrainJobStatus = true , TrainJobStatus=false ");
    REQUIRE(gates);
    CHECK_FALSE(gates->trainjob_status);
  }
  SECTION("errors name the item") {
    auto unknown = trainer::parse_feature_gates("TrainJobStatus=true,Nope=true");
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().code == ErrorCode::kInvalid);
    CHECK(unknown.error().message == "feature gates: unrecognized feature gate \"Nope\"");

    auto bad_value = trainer::parse_feature_gates("TrainJobStatus=yes");
    REQUIRE_FALSE(bad_value);
    CHECK(bad_value.error().message ==
          "feature gates: invalid value of TrainJobStatus=yes: not a boolean");

    auto no_value = trainer::parse_feature_gates("TrainJobStatus");
    REQUIRE_FALSE(no_value);
    CHECK(no_value.error().message ==
          "feature gates: missing bool value for \"TrainJobStatus\" (expected Name=true|false)");

    // gate names are case-sensitive, as upstream's
    CHECK_FALSE(trainer::parse_feature_gates("trainjobstatus=true"));
  }
}

TEST_CASE("random_uuid gives distinct RFC 4122 version 4 UUIDs", "[framework][context]") {
  const std::regex shape("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  std::set<std::string> seen;
  for (int i = 0; i < 64; ++i) {
    const std::string uuid = trainer::random_uuid();
    CHECK(std::regex_match(uuid, shape));
    seen.insert(uuid);
  }
  CHECK(seen.size() == 64);
}

TEST_CASE("system_render_context fills every outside input", "[framework][context]") {
  const auto given = trainer::system_render_context("fixed-uid");
  CHECK(given.train_job_uid == "fixed-uid");

  const auto ctx = trainer::system_render_context();
  CHECK(ctx.train_job_uid.size() == 36);
  REQUIRE(ctx.now);
  CHECK(std::regex_match(ctx.now(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  REQUIRE(ctx.generate_ssh_key);
  auto a = ctx.generate_ssh_key();
  auto b = ctx.generate_ssh_key();
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->private_key_pem.rfind("-----BEGIN EC PRIVATE KEY-----", 0) == 0);
  CHECK(a->authorized_key.rfind("ecdsa-sha2-nistp521 ", 0) == 0);
  CHECK(a->private_key_pem != b->private_key_pem);  // a fresh pair per call
}

}  // namespace
