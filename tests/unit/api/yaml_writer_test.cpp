// SPDX-License-Identifier: Apache-2.0
// encode_yaml lays out block YAML itself: its output must read back as the same document for
// every YAML document in the repository, every rendered golden case and strings chosen to hit
// each scalar style in each place; and its layout is pinned for every kind of node.
#include "trainer/codec.hpp"
#include "trainer/render.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void check_round_trip(const json::value& doc, const std::string& where) {
  INFO(where);
  const std::string text = trainer::encode_yaml(doc);
  INFO(text);
  auto back = trainer::parse_documents(text);
  REQUIRE(back);
  REQUIRE(back->size() == 1);
  CHECK(back->front() == doc);
}

// Every .yaml file below the repository folders that hold documents (tests run from the source
// root).
std::vector<fs::path> yaml_files() {
  std::vector<fs::path> files;
  for (const char* dir : {"tests", "examples", "lib/runtimes", "bench", "conan", "docs"}) {
    if (!fs::exists(dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".yaml") {
        files.push_back(entry.path());
      }
    }
  }
  return files;
}

}  // namespace

TEST_CASE("encode_yaml round-trips the repository's YAML", "[yaml][writer]") {
  std::size_t documents = 0;
  for (const auto& file : yaml_files()) {
    auto docs = trainer::parse_documents(read_text(file));
    if (!docs) continue;  // deliberately malformed inputs of other tests
    for (const auto& doc : *docs) {
      check_round_trip(doc, file.string());
      ++documents;
    }
  }
  CHECK(documents > 150);
}

TEST_CASE("encode_yaml round-trips every rendered golden case", "[yaml][writer]") {
  std::size_t objects = 0;
  for (const auto& entry : fs::directory_iterator("tests/golden/cases")) {
    std::string text;
    for (const char* name : {"preconditions.yaml", "runtime.yaml", "trainjob.yaml"}) {
      const fs::path p = entry.path() / name;
      if (fs::exists(p)) text += read_text(p) + "\n---\n";
    }
    auto docs = trainer::parse_documents(text);
    REQUIRE(docs);
    trainer::RenderContext ctx;
    ctx.train_job_uid = "3f0c9a6e-5b1d-4c2e-9a7f-0d1e2c3b4a59";
    ctx.now = [] { return std::string("2025-01-01T00:00:00Z"); };
    auto out = trainer::render_documents(*docs, ctx);
    if (!out) continue;  // the rejected cases
    for (const auto& object : out->objects) {
      check_round_trip(object, entry.path().string());
      ++objects;
    }
    CHECK(trainer::encode_yaml_stream(out->objects).size() >= out->objects.size());
  }
  CHECK(objects > 60);
}

TEST_CASE("encode_yaml round-trips every scalar style in every place", "[yaml][writer]") {
  const std::vector<std::string> strings = {"",
                                            "plain",
                                            "with space",
                                            " lead",
                                            "trail ",
                                            "a: b",
                                            "a:b",
                                            "x:",
                                            ":x",
                                            "#x",
                                            "x #y",
                                            "x#y",
                                            "'q'",
                                            "\"dq\"",
                                            "1",
                                            "-1",
                                            "1.5",
                                            "1e3",
                                            "0x1F",
                                            "0o17",
                                            "1_000",
                                            "true",
                                            "True",
                                            "yes",
                                            "no",
                                            "on",
                                            "off",
                                            "y",
                                            "n",
                                            "null",
                                            "Null",
                                            "~",
                                            "-",
                                            "- x",
                                            "-x",
                                            "--",
                                            "---",
                                            "...",
                                            "@a",
                                            "%a",
                                            "*a",
                                            "&a",
                                            "!a",
                                            "|a",
                                            ">a",
                                            "[a",
                                            "]a",
                                            "{a",
                                            "}a",
                                            "a,b",
                                            "a ,b",
                                            "a  b",
                                            "?a",
                                            "? a",
                                            "a\nb",
                                            "a\nb\n",
                                            "a\n\nb\n",
                                            "\n",
                                            "a\n\n",
                                            "  indented\n",
                                            "line \nx\n",
                                            "tab\tin",
                                            "tab\tline\n",
                                            "\x01",
                                            "bell\x07\n",
                                            "\xc3\xbc",
                                            "\xc3\xa9t\xc3\xa9\n",
                                            "\xc2\xa0nbsp",
                                            "2025-01-01T00:00:00Z",
                                            "1:30",
                                            "0.",
                                            ".5",
                                            ".inf",
                                            "a=b",
                                            "$(VAR)",
                                            "100%",
                                            "(x)",
                                            std::string(40, 'x') + " " + std::string(90, 'y'),
                                            "#!/bin/bash\nset -e\necho \"$HOSTNAME\"\n"};
  json::object map;
  json::array seq;
  for (std::size_t i = 0; i < strings.size(); ++i) {
    map["k" + std::to_string(i)] = json::string(strings[i]);
    seq.emplace_back(json::string(strings[i]));
    check_round_trip(json::object{{"value", json::string(strings[i])}}, "value " + strings[i]);
    check_round_trip(json::array{json::string(strings[i])}, "item " + strings[i]);
    check_round_trip(json::object{{strings[i], 1}}, "key " + strings[i]);
    check_round_trip(
        json::object{
            {"deep", json::array{json::object{
                         {"list", json::array{json::string(strings[i]), json::array{}}}}}}},
        "nested " + strings[i]);
  }
  check_round_trip(map, "all values");
  check_round_trip(seq, "all items");
  check_round_trip(json::object{{std::string(1500, 'k'), "long key"}}, "long key");
}

TEST_CASE("encode_yaml lays out every kind of node", "[yaml][writer]") {
  using trainer::encode_yaml;
  CHECK(encode_yaml(json::object{}) == "{}\n");
  CHECK(encode_yaml(json::array{}) == "[]\n");
  CHECK(encode_yaml(json::object{{"nil", nullptr},
                                 {"b", true},
                                 {"i", -7},
                                 {"u", 18446744073709551615ULL},
                                 {"d", 0.25},
                                 {"e", json::object{}},
                                 {"a", json::array{}},
                                 {"s", "29500"}}) ==
        "nil: ~\nb: true\ni: -7\nu: 18446744073709551615\nd: 0.25\ne: {}\na: []\ns: \"29500\"\n");
  CHECK(encode_yaml(json::object{
            {"m",
             json::object{{"k", "v"}, {"seq", json::array{1, json::object{{"x", 1}, {"w", 2}}}}}},
            {"z", 0}}) == "m:\n  k: v\n  seq:\n    - 1\n    - x: 1\n      w: 2\nz: 0\n");
  CHECK(encode_yaml(json::array{json::array{1, json::array{2, 3}}, json::array{}, json::object{},
                                json::object{{"a", json::array{}}}}) ==
        "- - 1\n  - - 2\n    - 3\n- []\n- {}\n- a: []\n");
  // literal blocks take the indentation of their place and need no blank line after them
  CHECK(encode_yaml(json::object{{"hostfile", "a slots=1\nb slots=1\n"}, {"next", 1}}) ==
        "hostfile: |\n  a slots=1\n  b slots=1\nnext: 1\n");
  CHECK(encode_yaml(json::array{"x\n\ny\n", json::object{{"k", "v\n"}}}) ==
        "- |\n  x\n\n  y\n- k: |\n    v\n");
  // double-quoted scalars carry yaml-cpp's escapes
  CHECK(encode_yaml(json::object{{"q", "a\"b\\c\td\x01"}}) == "q: \"a\\\"b\\\\c\\td\\x01\"\n");
  // a key that cannot be plain, or a bare scalar, goes through yaml-cpp's emitter
  CHECK(encode_yaml(json::object{{"yes", 1}}) == "\"yes\": 1\n");
  CHECK(encode_yaml(json::value("bare")) == "bare\n");
  CHECK(encode_yaml(json::value(nullptr)) == "~\n");

  std::vector<json::value> stream = {json::object{}, json::array{1}, json::object{{"a", 1}}};
  CHECK(trainer::encode_yaml_stream(stream) == "{}\n---\n- 1\n---\na: 1\n");
}
