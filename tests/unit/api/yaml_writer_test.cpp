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
namespace bjson = boost::json;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void check_round_trip(const bjson::value& doc, const std::string& where) {
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

// Equal as documents read back from YAML: an integral double below 1e21 reads back as the
// integer (docs/yaml.md, scalar resolution), everything else must be identical.
bool same_document(const bjson::value& a, const bjson::value& b) {
  if (a.is_double() && (b.is_int64() || b.is_uint64())) return same_document(b, a);
  if ((a.is_int64() || a.is_uint64()) && b.is_double()) {
    const double d = b.get_double();
    return d == (a.is_int64() ? static_cast<double>(a.get_int64())
                              : static_cast<double>(a.get_uint64())) &&
           d > -1e21 && d < 1e21;
  }
  if (a.kind() != b.kind()) return a == b;
  if (const auto* oa = a.if_object()) {
    const auto& ob = b.get_object();
    if (oa->size() != ob.size()) return false;
    for (std::size_t i = 0; i < oa->size(); ++i) {
      const auto& ka = oa->begin()[i];
      const auto& kb = ob.begin()[i];
      if (ka.key() != kb.key() || !same_document(ka.value(), kb.value())) return false;
    }
    return true;
  }
  if (const auto* aa = a.if_array()) {
    const auto& ab = b.get_array();
    if (aa->size() != ab.size()) return false;
    for (std::size_t i = 0; i < aa->size(); ++i) {
      if (!same_document((*aa)[i], ab[i])) return false;
    }
    return true;
  }
  return a == b;
}

// Every document `parse_documents` accepts from `text` must come back the same from
// encode_yaml, alone and as part of a stream. Returns the number of documents.
std::size_t check_text_round_trips(const std::string& text, const std::string& where) {
  auto docs = trainer::parse_documents(text);
  if (!docs) return 0;  // refused input: nothing to write
  for (const auto& doc : *docs) {
    INFO(where);
    const std::string yaml = trainer::encode_yaml(doc);
    INFO(yaml);
    auto back = trainer::parse_documents(yaml);
    REQUIRE(back);
    REQUIRE(back->size() == (doc.is_null() ? 0U : 1U));
    if (!doc.is_null()) CHECK(same_document(doc, back->front()));
  }
  auto stream = trainer::parse_documents(trainer::encode_yaml_stream(*docs));
  INFO(where);
  REQUIRE(stream);
  CHECK(stream->size() == docs->size());
  return docs->size();
}

}  // namespace

TEST_CASE("encode_yaml round-trips every document of the fuzz corpus and the test inputs",
          "[yaml][writer][property]") {
  std::size_t files = 0;
  std::size_t documents = 0;
  for (const char* dir :
       {"tests/fuzz/corpus", "tests/fuzz/seeds", "tests/golden/cases", "tests/data"}) {
    if (!fs::exists(dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      const auto ext = entry.path().extension();
      // The fuzz corpora hold files of any name; elsewhere only YAML and JSON documents.
      const bool corpus = entry.path().string().rfind("tests/fuzz/", 0) == 0;
      if (!corpus && ext != ".yaml" && ext != ".yml" && ext != ".json") continue;
      documents += check_text_round_trips(read_text(entry.path()), entry.path().string());
      ++files;
    }
  }
  CHECK(files > 100);
  CHECK(documents > 100);
}

TEST_CASE("encode_yaml round-trips hard keys and values", "[yaml][writer][property]") {
  std::vector<std::string> hard = {"",
                                   " ",
                                   "a b",
                                   " a",
                                   "a ",
                                   "a: b",
                                   "a:",
                                   ":",
                                   "::",
                                   "a #b",
                                   "#",
                                   "#a",
                                   "- a",
                                   "-",
                                   "--",
                                   "---",
                                   "...",
                                   "-a",
                                   "? a",
                                   "?",
                                   "?a",
                                   "&a",
                                   "*a",
                                   "!a",
                                   "!!str",
                                   "|",
                                   "|-",
                                   ">",
                                   "> a",
                                   "'",
                                   "\"",
                                   "%a",
                                   "@a",
                                   "`a",
                                   "{a}",
                                   "[a]",
                                   "a,b",
                                   ",",
                                   "<<",
                                   "=",
                                   "yes",
                                   "no",
                                   "Yes",
                                   "NO",
                                   "y",
                                   "N",
                                   "on",
                                   "Off",
                                   "true",
                                   "False",
                                   "null",
                                   "Null",
                                   "~",
                                   "0",
                                   "-1",
                                   "+1",
                                   "1.5",
                                   "1e3",
                                   ".5",
                                   "0x10",
                                   "0o7",
                                   "0b1",
                                   "012",
                                   "1_000",
                                   ".inf",
                                   "-.Inf",
                                   ".nan",
                                   "2025-01-01",
                                   "1:30",
                                   "\t",
                                   "a\tb",
                                   "\n",
                                   "a\nb",
                                   "a\nb\n",
                                   "\na",
                                   "\r",
                                   "a\r\nb",
                                   "\x01",
                                   "\x1f",
                                   "\x7f",
                                   "\\",
                                   "a\\nb",
                                   "\xc2\x80",
                                   "\xc2\x85",
                                   "\xc2\x9f",
                                   "\xc2\xa0",
                                   "\xe2\x80\xa8",
                                   "\xe2\x80\xa9",
                                   "\xef\xbb\xbf",
                                   "\xef\xbb\xbf"
                                   "a",
                                   "a\xc2\x85"
                                   "b\n",
                                   "x\xe2\x80\xa8y\n",
                                   "\xc3\xa9",
                                   "\xe2\x82\xac",
                                   "\xf0\x9f\x98\x80",
                                   "\xe4\xb8\xad\xe6\x96\x87"};
  // Long keys around yaml-cpp's 1024-byte simple-key limit, in plain, quoted and multi-byte
  // forms, with the indicators above in front.
  for (const std::size_t n : {1020U, 1021U, 1022U, 1023U, 1024U, 1025U, 1026U, 3000U}) {
    for (const std::string unit : {"a", "\xc3\xa9", "\xe2\x82\xac", "#", " ", ": "}) {
      std::string s;
      while (s.size() < n) s += unit;
      hard.push_back(s);
      hard.push_back("x" + s);
      hard.push_back("- " + s);
      hard.push_back(s + "\n");
    }
  }
  for (const auto& h : hard) {
    INFO("string of " << h.size() << " bytes: " << h.substr(0, 60));
    for (const bjson::value& doc :
         {bjson::value(bjson::string(h)), bjson::value(bjson::object{{h, bjson::string(h)}}),
          bjson::value(bjson::array{bjson::string(h), bjson::object{{h, 1}, {"next", h}}}),
          bjson::value(bjson::object{
              {"m", bjson::object{{h, bjson::array{bjson::object{{h, bjson::object{{h, h}}}}}}}}}),
          bjson::value(bjson::object{{h, bjson::object{{"a", 1}}}, {"b", bjson::array{h}}})}) {
      const std::string yaml = trainer::encode_yaml(doc);
      INFO(yaml.substr(0, 300));
      auto back = trainer::parse_documents(yaml);
      REQUIRE(back);
      REQUIRE(back->size() == 1);
      CHECK(back->front() == doc);
    }
  }
}

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
  bjson::object map;
  bjson::array seq;
  for (std::size_t i = 0; i < strings.size(); ++i) {
    map["k" + std::to_string(i)] = bjson::string(strings[i]);
    seq.emplace_back(bjson::string(strings[i]));
    check_round_trip(bjson::object{{"value", bjson::string(strings[i])}}, "value " + strings[i]);
    check_round_trip(bjson::array{bjson::string(strings[i])}, "item " + strings[i]);
    check_round_trip(bjson::object{{strings[i], 1}}, "key " + strings[i]);
    check_round_trip(
        bjson::object{
            {"deep", bjson::array{bjson::object{
                         {"list", bjson::array{bjson::string(strings[i]), bjson::array{}}}}}}},
        "nested " + strings[i]);
  }
  check_round_trip(map, "all values");
  check_round_trip(seq, "all items");
  check_round_trip(bjson::object{{std::string(1500, 'k'), "long key"}}, "long key");
}

TEST_CASE("encode_yaml lays out every kind of node", "[yaml][writer]") {
  using trainer::encode_yaml;
  CHECK(encode_yaml(bjson::object{}) == "{}\n");
  CHECK(encode_yaml(bjson::array{}) == "[]\n");
  CHECK(encode_yaml(bjson::object{{"nil", nullptr},
                                  {"b", true},
                                  {"i", -7},
                                  {"u", 18446744073709551615ULL},
                                  {"d", 0.25},
                                  {"e", bjson::object{}},
                                  {"a", bjson::array{}},
                                  {"s", "29500"}}) ==
        "nil: ~\nb: true\ni: -7\nu: 18446744073709551615\nd: 0.25\ne: {}\na: []\ns: \"29500\"\n");
  CHECK(encode_yaml(bjson::object{
            {"m", bjson::object{{"k", "v"},
                                {"seq", bjson::array{1, bjson::object{{"x", 1}, {"w", 2}}}}}},
            {"z", 0}}) == "m:\n  k: v\n  seq:\n    - 1\n    - x: 1\n      w: 2\nz: 0\n");
  CHECK(encode_yaml(bjson::array{bjson::array{1, bjson::array{2, 3}}, bjson::array{},
                                 bjson::object{}, bjson::object{{"a", bjson::array{}}}}) ==
        "- - 1\n  - - 2\n    - 3\n- []\n- {}\n- a: []\n");
  // literal blocks take the indentation of their place and need no blank line after them
  CHECK(encode_yaml(bjson::object{{"hostfile", "a slots=1\nb slots=1\n"}, {"next", 1}}) ==
        "hostfile: |\n  a slots=1\n  b slots=1\nnext: 1\n");
  CHECK(encode_yaml(bjson::array{"x\n\ny\n", bjson::object{{"k", "v\n"}}}) ==
        "- |\n  x\n\n  y\n- k: |\n    v\n");
  // double-quoted scalars escape what YAML readers would not keep
  CHECK(encode_yaml(bjson::object{{"q", "a\"b\\c\td\x01"}}) == "q: \"a\\\"b\\\\c\\td\\x01\"\n");
  // a key that cannot be plain is double-quoted; one longer than a simple key is explicit
  CHECK(encode_yaml(bjson::object{{"yes", 1}}) == "\"yes\": 1\n");
  CHECK(encode_yaml(bjson::object{{"\xc2\x85\xe2\x80\xa8\xef\xbb\xbf", "\x7f"}}) ==
        "\"\\x85\\u2028\\ufeff\": \"\\x7f\"\n");
  CHECK(encode_yaml(bjson::object{{std::string(1023, 'a') + "#", bjson::object{{"b", 1}}}}) ==
        "? \"" + std::string(1023, 'a') + "#\"\n:\n  b: 1\n");
  CHECK(encode_yaml(bjson::array{bjson::object{{std::string(1025, 'k'), 1}, {"z", 2}}}) ==
        "- ? " + std::string(1025, 'k') + "\n  : 1\n  z: 2\n");
  CHECK(encode_yaml(bjson::value("bare")) == "bare\n");
  CHECK(encode_yaml(bjson::value(nullptr)) == "~\n");

  std::vector<bjson::value> stream = {bjson::object{}, bjson::array{1}, bjson::object{{"a", 1}}};
  CHECK(trainer::encode_yaml_stream(stream) == "{}\n---\n- 1\n---\na: 1\n");
}
