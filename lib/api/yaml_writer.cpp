// SPDX-License-Identifier: Apache-2.0
//
// encode_yaml through yaml-cpp's emitter, block style. The emitter does not know our scalar
// resolution rules, so every string is checked here: a string is written plain only when our
// own reader would read it back as the same string; otherwise it is double-quoted, or written
// as a literal block when that reproduces it exactly.
#include "api/number_text.hpp"
#include "api/yaml_scalar.hpp"
#include "trainer/codec.hpp"

#include <yaml-cpp/emitter.h>
#include <yaml-cpp/emittermanip.h>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace trainer {
namespace {

namespace json = boost::json;

bool plain_safe_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.' || c == '/' || c == '=' || c == '+' || c == '@' || c == ',' ||
         c == ':' || c == ' ' || c == '(' || c == ')' || c == '$' || c == '%';
}

// Conservative: YAML allows far more plain scalars, but these are the ones that cannot start
// an indicator, a comment, a flow collection or a key/value separator.
bool can_be_plain(std::string_view s) {
  if (s.empty() || s.front() == ' ' || s.back() == ' ' || s.back() == ':') return false;
  const char c0 = s.front();
  if (c0 == '-' || c0 == ':' || c0 == ',' || c0 == '%' || c0 == '@') {
    // "-1" is a number (handled below), "- a" a sequence entry, "-foo" is fine when not followed
    // by a space; keep it simple and quote all of them unless alphanumeric follows "-".
    if (!(c0 == '-' && s.size() > 1 && s[1] != ' ' && s[1] != '-')) return false;
  }
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!plain_safe_char(s[i])) return false;
    if (s[i] == ':' && i + 1 < s.size() && s[i + 1] == ' ') return false;
    if (s[i] == ' ' && i + 1 < s.size() && s[i + 1] == ' ') return false;
  }
  return detail::plain_scalar_is_string(s);
}

// A literal block with clip chomping keeps exactly one final newline; yaml-cpp writes no
// chomping or indentation indicator, so only such strings can use it.
bool can_be_literal(std::string_view s) {
  if (s.size() < 2 || s.back() != '\n' || s[s.size() - 2] == '\n') return false;
  if (s.front() == ' ' || s.front() == '\n' || s.front() == '\t') return false;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) return false;
  }
  // A line of only spaces would be taken as indentation.
  std::size_t start = 0;
  while (start < s.size()) {
    const std::size_t end = s.find('\n', start);
    const std::string_view line = s.substr(start, end - start);
    if (!line.empty() && line.find_first_not_of(' ') == std::string_view::npos) return false;
    if (!line.empty() && (line.back() == ' ' || line.back() == '\t')) return false;
    start = end + 1;
  }
  return true;
}

void emit_string(YAML::Emitter& out, std::string_view s) {
  const std::string text(s);
  if (can_be_plain(s)) {
    out << text;
  } else if (can_be_literal(s)) {
    out << YAML::Literal << text;
  } else {
    out << YAML::DoubleQuoted << text;
  }
}

void emit(YAML::Emitter& out, const json::value& v) {
  switch (v.kind()) {
    case json::kind::object: {
      out << YAML::BeginMap;
      for (const auto& kv : v.get_object()) {
        out << YAML::Key;
        emit_string(out, kv.key());
        out << YAML::Value;
        emit(out, kv.value());
      }
      out << YAML::EndMap;
      return;
    }
    case json::kind::array:
      out << YAML::BeginSeq;
      for (const auto& item : v.get_array()) emit(out, item);
      out << YAML::EndSeq;
      return;
    case json::kind::string: emit_string(out, v.get_string()); return;
    case json::kind::bool_: out << (v.get_bool() ? "true" : "false"); return;
    case json::kind::null: out << YAML::Null; return;
    case json::kind::int64: out << std::to_string(v.get_int64()); return;
    case json::kind::uint64: out << std::to_string(v.get_uint64()); return;
    case json::kind::double_: out << detail::double_text(v.get_double()); return;
  }
}

}  // namespace

std::string encode_yaml(const boost::json::value& value) {
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetSeqFormat(YAML::Block);
  out.SetMapFormat(YAML::Block);
  emit(out, value);
  std::string text = out.c_str();
  if (text.empty() || text.back() != '\n') text += '\n';
  return text;
}

std::string encode_yaml_stream(const std::vector<boost::json::value>& documents) {
  std::string text;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    if (i != 0) text += "---\n";
    text += encode_yaml(documents[i]);
  }
  return text;
}

}  // namespace trainer
