// SPDX-License-Identifier: Apache-2.0
//
// typed -> JSON -> text -> JSON -> typed, on the conformance inputs and on tricky values.
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <boost/json/serialize.hpp>

using trainer::test::json;
using trainer::test::one_doc;
using trainer::test::read_data;

namespace {

// Decoding the encoded form gives the same typed object and the same JSON.
template <class T, class Decode>
void check_typed_round_trip(const boost::json::value& doc, Decode decode) {
  auto first = decode(doc);
  REQUIRE(first);
  CHECK(first->warnings.empty());
  const boost::json::value out = trainer::to_json(first->object);
  // No field is lost or invented for inputs without unknown fields.
  CHECK(out == doc);
  for (const std::string& text :
       {trainer::encode_yaml(out), trainer::encode_json(out), trainer::encode_json(out, true)}) {
    INFO(text);
    const boost::json::value again = one_doc(text);
    CHECK(again == out);
    auto second = decode(again);
    REQUIRE(second);
    CHECK(trainer::to_json(second->object) == out);
  }
}

}  // namespace

TEST_CASE("conformance inputs round-trip through every codec", "[roundtrip]") {
  for (const char* id : {"08", "09", "18", "21", "32"}) {
    INFO("case " << id);
    check_typed_round_trip<trainer::TrainJob>(
        one_doc(read_data(std::string("api/conformance/") + id + "-trainjob.yaml")),
        [](const boost::json::value& v) { return trainer::decode_train_job(v); });
    const auto rt = one_doc(read_data(std::string("api/conformance/") + id + "-runtime.yaml"));
    if (rt.at("kind") == "TrainingRuntime") {
      check_typed_round_trip<trainer::TrainingRuntime>(
          rt, [](const boost::json::value& v) { return trainer::decode_training_runtime(v); });
    } else {
      check_typed_round_trip<trainer::ClusterTrainingRuntime>(rt, [](const boost::json::value& v) {
        return trainer::decode_cluster_training_runtime(v);
      });
    }
  }
}

TEST_CASE("the full fixtures round-trip, keeping embedded objects", "[roundtrip]") {
  check_typed_round_trip<trainer::TrainJob>(
      one_doc(read_data("api/full-trainjob.yaml")),
      [](const boost::json::value& v) { return trainer::decode_train_job(v); });
  check_typed_round_trip<trainer::TrainingRuntime>(
      one_doc(read_data("api/full-runtime.yaml")),
      [](const boost::json::value& v) { return trainer::decode_training_runtime(v); });
}

TEST_CASE("to_json writes Go struct order and omits empty fields", "[encode]") {
  trainer::TrainJob job;
  job.metadata.name = "j";
  job.spec.runtime_ref.name = "r";
  job.spec.managed_by = "m";
  job.spec.suspend = false;
  trainer::Trainer t;
  t.num_nodes = 2;
  t.image = "i";
  job.spec.trainer = t;
  CHECK(trainer::encode_json(trainer::to_json(job)) ==
        R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",)"
        R"("metadata":{"name":"j"},"spec":{"runtimeRef":{"name":"r"},)"
        R"("trainer":{"image":"i","numNodes":2},"suspend":false,"managedBy":"m"}})");
  trainer::ClusterTrainingRuntime rt;
  CHECK(trainer::encode_json(trainer::to_json(rt)) ==
        R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"ClusterTrainingRuntime",)"
        R"("metadata":{},"spec":{}})");
}

TEST_CASE("unknown typed fields are dropped on re-encoding", "[encode]") {
  auto r = trainer::decode_train_job(
      one_doc("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nspec:\n  foo: 1\n"
              "  trainer:\n    env: [{name: A, extra: kept}]\n"));
  REQUIRE(r);
  CHECK(trainer::to_json(r->object) ==
        json(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","metadata":{},)"
             R"("spec":{"trainer":{"env":[{"name":"A","extra":"kept"}]}}})"));
}

TEST_CASE("encode_json is compact or two-space pretty", "[encode]") {
  const auto v = json(R"({"a":[1,{"b":null}],"c":{},"d":[],"e":"x\"y","f":0.25,"g":3.0})");
  CHECK(trainer::encode_json(v) ==
        R"({"a":[1,{"b":null}],"c":{},"d":[],"e":"x\"y","f":0.25,"g":3.0})");
  CHECK(trainer::encode_json(v, true) ==
        "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {},\n"
        "  \"d\": [],\n  \"e\": \"x\\\"y\",\n  \"f\": 0.25,\n  \"g\": 3.0\n}");
}

TEST_CASE("YAML output quotes every string that would change type", "[encode][yaml]") {
  const std::vector<std::string> tricky = {"29500",
                                           "1e3",
                                           "0x1F",
                                           "0o17",
                                           "017",
                                           "08",
                                           "1_000",
                                           "+1",
                                           "-1",
                                           ".5",
                                           "1.",
                                           "true",
                                           "false",
                                           "yes",
                                           "no",
                                           "on",
                                           "off",
                                           "y",
                                           "n",
                                           "Y",
                                           "N",
                                           "True",
                                           "OFF",
                                           "null",
                                           "Null",
                                           "~",
                                           "",
                                           " lead",
                                           "trail ",
                                           "a: b",
                                           "a #b",
                                           "#c",
                                           "- x",
                                           "-",
                                           "--",
                                           "---",
                                           "...",
                                           "?x",
                                           "? x",
                                           "!tag",
                                           "&anchor",
                                           "*alias",
                                           "[1]",
                                           "{a: 1}",
                                           "'q'",
                                           "\"q\"",
                                           "|",
                                           ">",
                                           "%x",
                                           "@x",
                                           "`x",
                                           "<<",
                                           ".inf",
                                           "-.inf",
                                           ".nan",
                                           "2024-01-01",
                                           "a\tb",
                                           "tab\t",
                                           "x\ry",
                                           "ctrl\x01",
                                           "h\xC3\xA9llo",
                                           "a slots=1\nb slots=1\n",
                                           "no newline\nat end",
                                           "two\n\n",
                                           "\nleading newline\n",
                                           "  indented\nblock\n",
                                           "line with trailing \nx\n",
                                           "a\n   \nb\n",
                                           "just text",
                                           "/root/.ssh",
                                           "trainer.kubeflow.org/trainjob-ancestor-step",
                                           "hf://model",
                                           "OpenMPI",
                                           "a,b",
                                           "x:y",
                                           "x:",
                                           "=",
                                           "1e400",
                                           "0b101",
                                           "-0"};
  boost::json::object o;
  boost::json::array a;
  for (std::size_t i = 0; i < tricky.size(); ++i) {
    o.emplace("k" + std::to_string(i), boost::json::string(tricky[i]));
    a.emplace_back(boost::json::string(tricky[i]));
    // As keys too.
    o.emplace(tricky[i], static_cast<std::int64_t>(i));
  }
  o.emplace("list", a);
  o.emplace("numbers", json(R"([0, -1, 9223372036854775807, 18446744073709551615, 0.5, -2.25,
                                  1e-7, 1.5e300, true, false, null, {}, []])"));
  o.emplace("nested", json(R"({"a":{"b":[{"c":"1"},["d",[]]]}})"));
  const boost::json::value v(std::move(o));
  const std::string text = trainer::encode_yaml(v);
  INFO(text);
  const boost::json::value back = one_doc(text);
  CHECK(back == v);
  for (const auto& kv : back.at("nested").get_object()) CHECK(kv.key() == "a");
}

TEST_CASE("multi-line strings use a literal block when exact", "[encode][yaml]") {
  const auto v = json(R"({"hostfile":"a slots=1\nb slots=1\n"})");
  CHECK(trainer::encode_yaml(v) == "hostfile: |\n  a slots=1\n  b slots=1\n");
  const auto w = json(R"({"s":"no final newline\nx"})");
  CHECK(trainer::encode_yaml(w) == "s: \"no final newline\\nx\"\n");
  CHECK(one_doc(trainer::encode_yaml(w)) == w);
}

TEST_CASE("plain strings stay plain", "[encode][yaml]") {
  CHECK(trainer::encode_yaml(json(R"({"image":"test:runtime","port":"29500","n":29500})")) ==
        "image: test:runtime\nport: \"29500\"\n\"n\": 29500\n");
}

TEST_CASE("encode_yaml_stream separates documents", "[encode][yaml]") {
  const std::vector<boost::json::value> docs = {json(R"({"a":1})"), json(R"(["x"])"),
                                                json(R"({"b":{"c":"yes"}})")};
  const std::string text = trainer::encode_yaml_stream(docs);
  CHECK(text == "a: 1\n---\n- x\n---\nb:\n  c: \"yes\"\n");
  auto back = trainer::parse_documents(text);
  REQUIRE(back);
  CHECK(*back == docs);
  CHECK(trainer::encode_yaml_stream({}).empty());
}
