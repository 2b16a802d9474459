// SPDX-License-Identifier: Apache-2.0
// How trainerctl reads the objects a cluster command names (kubectl's resource builder: the
// messages are kubectl v1.32's) and which names it suggests for a typo.
#include "flags.hpp"
#include "resource_args.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace {

using trainerctl::parse_resource_args;
using trainerctl::ResourceTarget;

std::vector<std::string> targets(const std::vector<std::string>& args, bool selector = false) {
  auto parsed = parse_resource_args(args, "get", selector);
  REQUIRE(parsed);
  std::vector<std::string> out;
  for (const auto& t : *parsed) out.push_back(t.type + (t.name.empty() ? "" : "/" + t.name));
  return out;
}

std::string error(const std::vector<std::string>& args, bool selector = false) {
  auto parsed = parse_resource_args(args, "get", selector);
  REQUIRE_FALSE(parsed);
  return parsed.error().message;
}

std::vector<std::string> suggested(const std::string& typed) {
  const std::vector<std::string_view> names = {"version", "validate", "render", "run",
                                               "status",  "logs",     "get",    "describe",
                                               "wait",    "delete",   "apply",  "completion"};
  std::vector<std::string> out;
  for (const auto s : trainerctl::suggestions(typed, names)) out.emplace_back(s);
  return out;
}

}  // namespace

TEST_CASE("resource arguments: TYPE, TYPE NAME..., TYPE,TYPE and TYPE/NAME") {
  CHECK(targets({}).empty());
  CHECK(targets({"trainjobs"}) == std::vector<std::string>{"trainjobs"});
  CHECK(targets({"trainjob", "a", "b"}) == std::vector<std::string>{"trainjob/a", "trainjob/b"});
  CHECK(targets({"trainjobs,jobsets"}) == std::vector<std::string>{"trainjobs", "jobsets"});
  // Several types and names: each type with each name; a repeated type counts once.
  CHECK(targets({"trainjobs,jobsets,trainjobs", "a", "b"}) ==
        std::vector<std::string>{"trainjobs/a", "trainjobs/b", "jobsets/a", "jobsets/b"});
  CHECK(targets({"trainjob/a", "jobset/a"}) == std::vector<std::string>{"trainjob/a", "jobset/a"});
  CHECK(targets({"trainjobs"}, true) == std::vector<std::string>{"trainjobs"});
  CHECK(trainerctl::names_one_object(*parse_resource_args({"trainjob/a"}, "get")));
  CHECK(trainerctl::names_one_object(*parse_resource_args({"trainjob", "a"}, "get")));
  CHECK_FALSE(trainerctl::names_one_object(*parse_resource_args({"trainjob", "a", "b"}, "get")));
  CHECK_FALSE(
      trainerctl::names_one_object(*parse_resource_args({"trainjobs,jobsets", "a"}, "get")));
  CHECK_FALSE(trainerctl::names_one_object(*parse_resource_args({"trainjobs"}, "get")));
}

TEST_CASE("resource arguments: kubectl's errors") {
  CHECK(error({"trainjob", "a", "trainjob/b"}) ==
        "there is no need to specify a resource type as a separate argument when passing "
        "arguments in resource/name form (e.g. 'trainerctl get resource/<resource_name>' "
        "instead of 'trainerctl get resource resource/<resource_name>'");
  CHECK(error({"trainjob/"}) ==
        "arguments in resource/name form must have a single resource and name");
  CHECK(error({"/a"}) == "arguments in resource/name form must have a single resource and name");
  CHECK(error({"a,b/x"}) == "arguments in resource/name form must have a single resource and name");
  CHECK(error({"a/b/c"}) == "arguments in resource/name form may not have more than one slash");
  CHECK(error({"trainjob/a"}, true) ==
        "selectors and the all flag cannot be used when passing resource/name arguments");
  CHECK(error({"trainjob", "a"}, true) == "name cannot be provided when a selector is specified");
}

TEST_CASE("suggestions: close names only") {
  CHECK(suggested("edit").empty());  // cobra's distance 2 would offer `wait`
  CHECK(suggested("rendr") == std::vector<std::string>{"render"});
  CHECK(suggested("gte") == std::vector<std::string>{"get"});  // a swap is one edit
  CHECK(suggested("descibe") == std::vector<std::string>{"describe"});
  CHECK(suggested("delte") == std::vector<std::string>{"delete"});
  CHECK(suggested("val") == std::vector<std::string>{"validate"});  // a prefix
  CHECK(suggested("de") == std::vector<std::string>{"describe", "delete"});
  CHECK(suggested("completoin") == std::vector<std::string>{"completion"});
  CHECK(suggested("frobnicate").empty());
  CHECK(suggested("").empty());
}
