// SPDX-License-Identifier: Apache-2.0
//
// Hostile input: every limit and refusal of parse_documents, for YAML and JSON.
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <chrono>

using trainer::ErrorCode;
using trainer::parse_documents;
using trainer::test::json;
using trainer::test::one_doc;

namespace {

void require_error(const trainer::Result<std::vector<boost::json::value>>& r, ErrorCode code,
                   const std::string& message) {
  REQUIRE_FALSE(r);
  CHECK(r.error().code == code);
  CHECK(r.error().message == message);
}

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

}  // namespace

TEST_CASE("multi-document YAML streams keep order and skip empty documents", "[yaml]") {
  auto r = parse_documents("---\na: 1\n---\n# only a comment\n---\n~\n---\n- x\n...\n---\nb: 2\n");
  REQUIRE(r);
  REQUIRE(r->size() == 3);
  CHECK((*r)[0] == json(R"({"a":1})"));
  CHECK((*r)[1] == json(R"(["x"])"));
  CHECK((*r)[2] == json(R"({"b":2})"));
  auto empty = parse_documents("");
  REQUIRE(empty);
  CHECK(empty->empty());
}

TEST_CASE("JSON input is detected by its first character", "[json]") {
  CHECK(one_doc("  \n {\"a\": [1, 2.5, \"x\", null, true]}") ==
        json(R"({"a":[1,2.5,"x",null,true]})"));
  CHECK(one_doc("[1]") == json("[1]"));
  // A UTF-8 byte order mark is allowed in front of either.
  CHECK(one_doc("\xEF\xBB\xBF{\"a\":1}") == json(R"({"a":1})"));
  require_error(parse_documents("{\"a\": 1} x"), ErrorCode::kParse,
                "json: line 1, column 10: unexpected data after the JSON value");
}

TEST_CASE("input over max_document_bytes is refused before parsing", "[limits]") {
  const std::string big = "a: " + std::string((std::size_t{4} << 20U) - 3, 'x');
  REQUIRE(big.size() == std::size_t{4} << 20U);
  CHECK(parse_documents(big));
  const std::string over = big + "x";
  require_error(parse_documents(over), ErrorCode::kLimit,
                "input of 4194305 bytes exceeds max_document_bytes (4194304)");
  trainer::DecodeOptions small;
  small.max_document_bytes = 4;
  CHECK(parse_documents("a: 1", small));
  require_error(parse_documents("a: 12", small), ErrorCode::kLimit,
                "input of 5 bytes exceeds max_document_bytes (4)");
}

TEST_CASE("100000-deep nesting fails cleanly in YAML and JSON", "[limits]") {
  const std::size_t n = 100000;
  require_error(parse_documents(std::string(n, '[') + std::string(n, ']')), ErrorCode::kLimit,
                "json: line 1, column 101: nesting deeper than max_depth (100)");
  require_error(parse_documents(repeat("{\"a\":", n) + "1" + std::string(n, '}')),
                ErrorCode::kLimit, "json: line 1, column 501: nesting deeper than max_depth (100)");
  require_error(parse_documents("x: " + std::string(n, '[') + std::string(n, ']')),
                ErrorCode::kLimit, "yaml: line 1, column 103: nesting deeper than max_depth (100)");
  require_error(parse_documents("x: " + repeat("{a: ", n) + "1" + std::string(n, '}')),
                ErrorCode::kLimit, "yaml: line 1, column 400: nesting deeper than max_depth (100)");
  require_error(parse_documents(repeat("- ", n) + "a\n"), ErrorCode::kLimit,
                "yaml: line 1, column 201: nesting deeper than max_depth (100)");
  // Block mappings: "a:\n  a:\n    a:\n..." as deep as 4 MiB allows.
  std::string block;
  for (std::size_t depth = 0; block.size() < (std::size_t{4} << 20U) - 4000; ++depth) {
    block += std::string(depth * 2, ' ') + "a:\n";
  }
  require_error(parse_documents(block), ErrorCode::kLimit,
                "yaml: line 101, column 201: nesting deeper than max_depth (100)");
  // Unterminated flow input is refused without recursion either.
  CHECK_FALSE(parse_documents("x: " + std::string(n, '[')));
}

TEST_CASE("depth at the limit is accepted, one more is refused", "[limits]") {
  trainer::DecodeOptions o;
  o.max_depth = 3;
  CHECK(parse_documents("a: {b: [1]}", o));
  require_error(parse_documents("a: {b: [[1]]}", o), ErrorCode::kLimit,
                "yaml: line 1, column 9: nesting deeper than max_depth (3)");
  CHECK(parse_documents(R"({"a":{"b":[1]}})", o));
  CHECK_FALSE(parse_documents(R"({"a":{"b":[[1]]}})", o));
  // An alias counts with the depth of what it expands to.
  require_error(parse_documents("a: &x [[1]]\nb: [*x]\n", o), ErrorCode::kLimit,
                "yaml: line 2, column 5: nesting deeper than max_depth (3)");
}

TEST_CASE("billion laughs fails fast on max_nodes", "[limits]") {
  std::string lol =
      "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    const char prev = static_cast<char>(c - 1);
    lol += std::string(1, c) + ": &" + c + " [" + repeat(std::string("*") + prev + ",", 8) + "*" +
           prev + "]\n";
  }
  const auto start = std::chrono::steady_clock::now();
  const auto r = parse_documents(lol);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  REQUIRE_FALSE(r);
  CHECK(r.error().code == ErrorCode::kLimit);
  CHECK(r.error().message.find("more than max_nodes (1000000) nodes after alias expansion") !=
        std::string::npos);
  // The message proves the expansion stopped at max_nodes instead of building 9^9 nodes; the
  // clock only guards against a hang, with room for ASan's slow unwinder on a loaded 2-core
  // machine (speed itself is measured in bench/, not here).
  CHECK(elapsed < std::chrono::seconds(60));
}

TEST_CASE("aliases: max_aliases, expansion, recursion", "[limits]") {
  CHECK(one_doc("a: &x {k: v}\nb: *x\n") == json(R"({"a":{"k":"v"},"b":{"k":"v"}})"));
  trainer::DecodeOptions o;
  o.max_aliases = 2;
  CHECK(parse_documents("a: &x 1\nb: [*x, *x]\n", o));
  require_error(parse_documents("a: &x 1\nb: [*x, *x, *x]\n", o), ErrorCode::kLimit,
                "yaml: line 2, column 13: more than max_aliases (2) aliases");
  require_error(parse_documents("a: &x [1, *x]\n"), ErrorCode::kParse,
                "yaml: line 1, column 11: an alias refers to the node that contains it");
  o = {};
  o.max_nodes = 5;
  require_error(parse_documents("a: [1, 2, 3, 4]\n", o), ErrorCode::kLimit,
                "yaml: line 1, column 11: more than max_nodes (5) nodes after alias expansion");
  require_error(parse_documents("[1, 2, 3, 4, 5]", o), ErrorCode::kLimit,
                "json: line 1, column 15: more than max_nodes (5) nodes");
}

TEST_CASE("max_documents bounds a YAML stream", "[limits]") {
  trainer::DecodeOptions o;
  o.max_documents = 2;
  CHECK(parse_documents("a: 1\n---\nb: 2\n", o));
  require_error(parse_documents("a: 1\n---\nb: 2\n---\nc: 3\n", o), ErrorCode::kLimit,
                "yaml: line 4, column 1: more than max_documents (2) documents");
}

TEST_CASE("duplicate keys are refused in YAML and JSON", "[limits]") {
  require_error(parse_documents("a: 1\nb:\n  c: 1\n  c: 2\n"), ErrorCode::kParse,
                "yaml: line 4, column 3: duplicate key \"c\" in map");
  require_error(parse_documents("a: 1\n'a': 2\n"), ErrorCode::kParse,
                "yaml: line 2, column 1: duplicate key \"a\" in map");
  require_error(parse_documents("{\"a\": {\"b\": 1,\n \"b\": 2}}"), ErrorCode::kParse,
                "json: line 2, column 4: duplicate key \"b\" in object");
  // Same key text through an escape.
  require_error(parse_documents(R"({"a": 1, "\u0061": 2})"), ErrorCode::kParse,
                "json: line 1, column 17: duplicate key \"a\" in object");
  // The same key in different objects is fine.
  CHECK(parse_documents(R"({"a": {"a": 1}, "b": {"a": 2}})"));
  // The first problem is reported: a duplicate before a syntax error, before a NUL, before a
  // number out of range (the reader finds duplicates in one pass, then reads the text again).
  require_error(parse_documents("{\"x\": [{\"b\": 1, \"b\": 2}], \"y\": [1,, 2]}"),
                ErrorCode::kParse, "json: line 1, column 19: duplicate key \"b\" in object");
  require_error(parse_documents(R"({"x": {"b": 1, "b": 2}, "y": "\u0000"})"), ErrorCode::kParse,
                "json: line 1, column 18: duplicate key \"b\" in object");
  require_error(parse_documents(R"({"y": 1e400, "x": {"b": 1, "b": 2}})"), ErrorCode::kParse,
                "json: line 1, column 12: number 1e400 is out of the range of a float64");
  // In an object with many keys (looked up in a hash set), and a key split by an escape.
  std::string many = "{";
  for (int i = 0; i < 40; ++i)
    many += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
  require_error(parse_documents(many + R"("k\u00337": 1})"), ErrorCode::kParse,
                "json: line 1, column 431: duplicate key \"k37\" in object");
  CHECK(parse_documents(many + R"("k\u00340": 1})"));
}

TEST_CASE("non-string map keys are refused", "[limits]") {
  require_error(parse_documents("? [a]\n: 1\n"), ErrorCode::kParse,
                "yaml: line 1, column 3: map keys must be strings");
  require_error(parse_documents("x: {[1]: 2}\n"), ErrorCode::kParse,
                "yaml: line 1, column 5: map keys must be strings");
  require_error(parse_documents("x: {{a: 1}: 2}\n"), ErrorCode::kParse,
                "yaml: line 1, column 5: map keys must be strings");
  require_error(parse_documents("~: 1\n"), ErrorCode::kParse,
                "yaml: line 1, column 1: map keys must be strings");
  require_error(parse_documents("1.5: 1\n"), ErrorCode::kParse,
                "yaml: line 1, column 1: map keys must be strings");
  // `{[1]: 2}` starts with `{`, so it is JSON and a syntax error there.
  require_error(parse_documents("{[1]: 2}"), ErrorCode::kParse,
                "json: line 1, column 2: syntax error");
}

TEST_CASE("merge keys are refused with a clear error", "[yaml]") {
  require_error(parse_documents("base: &b {x: 1}\nd:\n  <<: *b\n  y: 2\n"), ErrorCode::kParse,
                "yaml: line 3, column 3: merge keys (<<) are not supported");
  // A quoted "<<" is an ordinary key.
  CHECK(one_doc("\"<<\": 1\n") == json(R"({"<<":1})"));
}

TEST_CASE("invalid UTF-8 is refused in YAML and JSON", "[limits]") {
  require_error(parse_documents("a: ok\nb: \xC3\x28\n"), ErrorCode::kParse,
                "invalid UTF-8 at line 2, column 4 (byte offset 9)");
  require_error(parse_documents("{\"a\": \"\xFF\"}"), ErrorCode::kParse,
                "invalid UTF-8 at line 1, column 8 (byte offset 7)");
  // After whole words of ASCII and inside one (ASCII is checked eight bytes at a time).
  require_error(parse_documents("abcdefghijklmnop: q\xFFrstuvwxyz0123456789\n"), ErrorCode::kParse,
                "invalid UTF-8 at line 1, column 20 (byte offset 19)");
  CHECK(one_doc("key: 0123456789abcdef\xC3\xA9 0123456789abcdef\n").at("key") ==
        "0123456789abcdef\xC3\xA9 0123456789abcdef");
  // Overlong "/" and an encoded surrogate.
  CHECK_FALSE(parse_documents("a: \xC0\xAF\n"));
  CHECK_FALSE(parse_documents("a: \xED\xA0\x80\n"));
  CHECK_FALSE(parse_documents("a: \xF4\x90\x80\x80\n"));
  // Truncated sequence at the end.
  CHECK_FALSE(parse_documents("a: \xE2\x82"));
  CHECK(one_doc("a: \"h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80\"\n").at("a") ==
        "h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80");
}

TEST_CASE("syntax errors name line and column", "[yaml][json]") {
  require_error(parse_documents("a: [1\n"), ErrorCode::kParse,
                "yaml: line 2, column 1: end of sequence flow not found");
  require_error(parse_documents("{\"a\": }"), ErrorCode::kParse,
                "json: line 1, column 7: syntax error");
}

TEST_CASE("decoded scalars must be valid UTF-8 without NUL, keys included", "[yaml][limits]") {
  // yaml-cpp decodes \_ and \N to the single bytes A0 and 85 (not UTF-8); the error names the
  // field and how to write the character instead.
  require_error(parse_documents("spec:\n  env:\n  - value: \"x\\_y\"\n"), ErrorCode::kParse,
                "yaml: line 3, column 12: spec.env[0].value: the scalar decodes to invalid UTF-8 "
                "at byte 1 (yaml-cpp decodes the escapes \\_ and \\N to single bytes; write "
                "\\u00a0 and \\u0085 instead)");
  require_error(parse_documents("a: [\"\\N\"]\n"), ErrorCode::kParse,
                "yaml: line 1, column 5: a[0]: the scalar decodes to invalid UTF-8 at byte 0 "
                "(yaml-cpp decodes the escapes \\_ and \\N to single bytes; write \\u00a0 and "
                "\\u0085 instead)");
  require_error(parse_documents("a:\n  \"k\\_\": 1\n"), ErrorCode::kParse,
                "yaml: line 2, column 3: a: a map key decodes to invalid UTF-8 at byte 1 "
                "(yaml-cpp decodes the escapes \\_ and \\N to single bytes; write \\u00a0 and "
                "\\u0085 instead)");
  // The escapes of the same characters by code point decode correctly.
  CHECK(one_doc("a: \"\\u00a0\\x85\"\n").at("a") == "\xC2\xA0\xC2\x85");
  // NUL through every escape, in values and keys.
  for (const char* text : {"a: \"\\0\"\n", "a: \"x\\x00\"\n", "a: \"\\u0000\"\n"}) {
    require_error(parse_documents(text), ErrorCode::kParse,
                  "yaml: line 1, column 4: a: the scalar contains a NUL character, which is not "
                  "allowed");
  }
  require_error(parse_documents("b: {\"\\0\": 1}\n"), ErrorCode::kParse,
                "yaml: line 1, column 5: b: a map key contains a NUL character, which is not "
                "allowed");
  // At the root there is no path to name.
  require_error(parse_documents("\"\\0\"\n"), ErrorCode::kParse,
                "yaml: line 1, column 1: the scalar contains a NUL character, which is not "
                "allowed");
}

TEST_CASE("raw NUL bytes in YAML text are refused before parsing", "[yaml][limits]") {
  // yaml-cpp would read "\0: 1" as the key ":\u2031" and "a: x\0y" as an escape.
  using namespace std::string_literals;
  require_error(parse_documents("a: 1\n\0: 1\n"s), ErrorCode::kParse,
                "yaml: NUL character at line 2, column 1 (byte offset 5)");
  require_error(parse_documents("a: x\0y\n"s), ErrorCode::kParse,
                "yaml: NUL character at line 1, column 5 (byte offset 4)");
  require_error(parse_documents("a: 'x\0y'\n"s), ErrorCode::kParse,
                "yaml: NUL character at line 1, column 6 (byte offset 5)");
}

TEST_CASE("aliases are charged with the bytes they copy", "[yaml][limits]") {
  // 200 aliases of a 1 MiB scalar would copy 200 MiB (about 420 MB of memory before this
  // limit); they stop at max_alias_bytes (4 MiB) after 3 copies besides the anchor's own.
  const std::string big(std::size_t{1} << 20U, 'x');
  std::string doc = "a: &x " + big + "\nb:\n";
  for (int i = 0; i < 200; ++i) doc += "- *x\n";
  const auto start = std::chrono::steady_clock::now();
  require_error(parse_documents(doc), ErrorCode::kLimit,
                "yaml: line 6, column 3: b[3]: anchors and aliases copy more than "
                "max_alias_bytes (4194304) bytes of scalar text");
  // A hang guard only (see "billion laughs").
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(60));

  // Nested anchors copy what they hold again: charged as well.
  trainer::DecodeOptions o;
  o.max_alias_bytes = 10;
  CHECK(parse_documents("a: &x [&y abcd]\n", o));  // 4 + 4 bytes
  require_error(parse_documents("a: &x [&y abcd, e]\nb: *y\n", o), ErrorCode::kLimit,
                "yaml: line 2, column 4: b: anchors and aliases copy more than max_alias_bytes "
                "(10) bytes of scalar text");
  // Keys count as text too.
  o.max_alias_bytes = 7;
  require_error(parse_documents("a: &x {key: v}\nb: *x\n", o), ErrorCode::kLimit,
                "yaml: line 2, column 4: b: anchors and aliases copy more than max_alias_bytes "
                "(7) bytes of scalar text");

  // Modest, legitimate use works with the defaults: a shared block reused a few times.
  const auto shared = one_doc(
      "defaults: &d {image: 'example.com/train:1', env: [{name: A, value: '1'}]}\n"
      "jobs: [*d, *d, *d]\n");
  CHECK(shared.at("jobs").as_array().size() == 3);
  CHECK(shared.at("jobs").at(2) == shared.at("defaults"));
  // An anchored 1 MiB scalar may still be referenced a few times.
  CHECK(parse_documents("a: &x " + big + "\nb: [*x, *x]\n"));
}

TEST_CASE("yaml-cpp's messages that quote input bytes stay valid UTF-8", "[limits]") {
  // yaml-cpp quotes the first byte of an unknown escape; half a UTF-8 character was copied into
  // the message (fuzz_yaml). tests/fuzz/seeds/fuzz_yaml/regression-unknown-escape-utf8.yaml.
  require_error(parse_documents("a: \"\\\xc3\xa9\"\n"), ErrorCode::kParse,
                "yaml: line 1, column 7: unknown escape character: \\xc3");
}
