// SPDX-License-Identifier: Apache-2.0
// kubectl's JSONPath templates: each expected text is what kubectl v1.32 prints for the same
// template and object (`kubectl get configmaps a b -o jsonpath=...`).
#include "jsonpath.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch.hpp>

#include <string>

namespace {

namespace json = boost::json;
using trainerctl::JsonPath;

const json::value& list() {
  static const json::value doc = json::parse(R"({
    "apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
    "items": [
      {"apiVersion": "v1", "kind": "ConfigMap",
       "metadata": {"name": "a", "labels": {"tier": "web", "app": "x"}},
       "data": {"n": "1"}, "spec": {"replicas": 2, "ratio": 0.5, "big": 1000000.0,
                                    "on": true, "none": null, "args": ["-v", "x"]}},
      {"apiVersion": "v1", "kind": "ConfigMap",
       "metadata": {"name": "b", "labels": {"app": "y"}},
       "data": {"n": "2", "m": "<&>"}, "spec": {"replicas": 3}}
    ]})");
  return doc;
}

std::string run(const std::string& text, const json::value& data = list()) {
  auto path = JsonPath::parse(text);
  REQUIRE(path);
  auto out = path->execute(data);
  REQUIRE(out);
  return *out;
}

std::string parse_error(const std::string& text) {
  auto path = JsonPath::parse(text);
  REQUIRE_FALSE(path);
  return path.error();
}

std::string run_error(const std::string& text) {
  auto path = JsonPath::parse(text);
  REQUIRE(path);
  auto out = path->execute(list());
  REQUIRE_FALSE(out);
  return out.error();
}

}  // namespace

TEST_CASE("jsonpath: fields, indexes, slices and wildcards") {
  CHECK(run("{.kind}") == "List");
  CHECK(run("{.items[*].metadata.name}") == "a b");
  CHECK(run("names: {.items[0].metadata.name}, {.items[-1].metadata.name}") == "names: a, b");
  CHECK(run("{.items[0:1].metadata.name}") == "a");
  CHECK(run("{.items[::2].metadata.name}") == "a");
  CHECK(run("{.items[1:].metadata.name}") == "b");
  CHECK(run("{$.items[0]['metadata']['name']}") == "a");
  CHECK(run("{.items[*].metadata.labels.*}") == "x web y");  // keys sorted, as Go prints maps
  CHECK(run("{..app}") == "x y");
  CHECK(run("{.items[0].metadata.name.*}") == "97");  // a string's bytes, as Go's reflection
  CHECK(run("{.items[*].data.m}") == "<&>");
  CHECK(run("{.items[0].spec.args[1]}") == "x");
}

TEST_CASE("jsonpath: values print as Go prints them") {
  // Objects and arrays as json.Marshal: compact, keys sorted, <, > and & escaped.
  CHECK(run("{.items[0].metadata.labels}") == R"({"app":"x","tier":"web"})");
  CHECK(run("{.items[1].data}") == R"({"m":"\u003c\u0026\u003e","n":"2"})");
  CHECK(run("{.items[0].spec.args}") == R"(["-v","x"])");
  // Scalars as fmt's %v.
  CHECK(run("{.items[0].spec.replicas} {.items[0].spec.ratio} {.items[0].spec.on}") ==
        "2 0.5 true");
  CHECK(run("{.items[0].spec.big}") == "1e+06");
  CHECK(run("{.items[0].spec.none}") == "<nil>");
  CHECK(trainerctl::go_sprint(json::parse(R"({"b":[1,"x"],"a":{"c":null}})")) ==
        "map[a:map[c:<nil>] b:[1 x]]");
  CHECK(trainerctl::go_sprint(json::value(123456.0)) == "123456");
  CHECK(trainerctl::go_sprint(json::value(0.00001)) == "1e-05");
  CHECK(trainerctl::go_json(json::value(1e21)) == "1e+21");
  CHECK(trainerctl::go_json(json::value(1e-7)) == "1e-7");
  CHECK(trainerctl::go_json(json::value(1e20)) == "100000000000000000000");
  CHECK(trainerctl::go_json(json::value("tab\there \xff")) == R"("tab\there \ufffd")");
}

TEST_CASE("jsonpath: range, end and quoted text") {
  CHECK(run(R"({range .items[*]}{.metadata.name}{"\t"}{.data.n}{"\n"}{end})") == "a\t1\nb\t2\n");
  CHECK(run(R"({range .items[*]}[{.metadata.name}]{end} done)") == "[a][b] done");
  // Nested ranges; a range over nothing prints nothing of its body.
  CHECK(run(R"({range .items[*]}{range .spec.args[*]}<{@}>{end};{end})") == "<-v><x>;;");
  CHECK(run(R"({range .items[*].nothing}x{end}after)") == "after");
  CHECK(run(R"({'single'} {"\u00e9\x41"})") ==
        "single \xc3\xa9"
        "A");
}

TEST_CASE("jsonpath: filters") {
  CHECK(run(R"({.items[?(@.metadata.name=="b")].data.n})") == "2");
  CHECK(run(R"({.items[?(@.metadata.name != "b")].metadata.name})") == "a");
  CHECK(run("{.items[?(@.metadata.labels.tier)].metadata.name}") == "a");
  CHECK(run(R"({.items[?(@.data.n>"1")].metadata.name})") == "b");
  CHECK(run("{.items[?(@.spec.replicas>=3)].metadata.name}") == "b");
  CHECK(run("{.items[?(@.spec.replicas<3)].metadata.name}") == "a");
  CHECK(run("{.items[?(@.spec.on==true)].metadata.name}") == "a");
  CHECK(run("{.items[?(@.spec.replicas==@.spec.replicas)].metadata.name}") == "a b");
  // Unions.
  CHECK(run("{.items[*]['kind','apiVersion']}") == "ConfigMap ConfigMap v1 v1");
  CHECK(run("{.items[0,1].metadata.name}") == "a b");
}

TEST_CASE("jsonpath: a key that is not there yields nothing") {
  CHECK(run("{.nope}x") == "x");
  CHECK(run("{.items[*].nope.deeper}") == "");
  CHECK(run("{.items[0].spec.none[0]}") == "");  // null is skipped, as a nil pointer
  auto found = JsonPath::parse("{.nope}")->find(list());
  REQUIRE(found);
  REQUIRE(found->size() == 1);
  CHECK(found->at(0).empty());
}

TEST_CASE("jsonpath: errors are kubectl's") {
  CHECK(parse_error("{.items[}") == "unterminated array");
  CHECK(parse_error("{.kind") == "unclosed action");
  CHECK(parse_error("{#}") == "unrecognized character in action: U+0023 '#'");
  CHECK(parse_error("{.items[?(@.a==1}") == "unterminated filter");
  CHECK(parse_error("{.items[x]}") == "invalid array index x");
  CHECK(parse_error("{....a}") == "invalid multiple recursive descent");
  CHECK(parse_error(R"({"abc})") == "unterminated quoted string");
  CHECK(run_error("{.items[5]}") == "array index out of bounds: index 5, length 2");
  CHECK(run_error("{.items[0:5]}") == "array index out of bounds: index 4, length 2");
  CHECK(run_error("{.items[::0]}") == "step must be > 0");
  CHECK(run_error("{.items[?(@.data.n>1)]}") == "incompatible types for comparison");
  CHECK(run_error("{.items[?(@.metadata>1)]}") == "invalid type for comparison");
  CHECK(run_error("{end}") == "not in range, nothing to end");
  CHECK(run_error("{.kind[0]}") == "string is not array or slice");
  CHECK(run_error("{.metadata[?(@.x)]}") ==
        "map[resourceVersion:] is not array or slice and cannot be filtered");
  CHECK(run_error("{.items[?(@.kind=~\"x\")]}") == "unrecognized filter operator =~");
  CHECK(run_error("{foo}") == "unrecognized identifier foo");
}

TEST_CASE("jsonpath: custom columns' relaxed paths") {
  using trainerctl::relaxed_jsonpath;
  CHECK(relaxed_jsonpath(".metadata.name") == "{.metadata.name}");
  CHECK(relaxed_jsonpath("metadata.name") == "{.metadata.name}");
  CHECK(relaxed_jsonpath("{.metadata.name}") == "{.metadata.name}");
  CHECK(relaxed_jsonpath("{metadata.name}") == "{.metadata.name}");
  CHECK(relaxed_jsonpath("").value() == "");
  CHECK_FALSE(relaxed_jsonpath("{.a}{.b}"));
  CHECK(relaxed_jsonpath(".") == "{..}");
  CHECK_FALSE(relaxed_jsonpath("a{b"));
}
