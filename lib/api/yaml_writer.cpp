// SPDX-License-Identifier: Apache-2.0
//
// encode_yaml: block YAML, indent 2, sequences inside maps indented, a map inside a sequence
// starting on the `- ` line, empty collections as `{}`/`[]` on the line of their key or dash.
// Scalars are checked against our own resolution rules: a string is written plain only when our
// reader reads it back as the same string; otherwise it is double-quoted, or written as a literal
// block when that reproduces it exactly.
//
// The block structure and the plain and literal scalars are written straight into the output:
// yaml-cpp's emitter runs its plain-scalar regular expressions on every scalar, which was half of
// the time of a whole render (the runtime snapshot ConfigMap holds the runtime as YAML), and it
// puts empty collections and nested sequences on lines of their own. Double quoting, rare in our
// documents, goes through the emitter so that the escapes are yaml-cpp's; so does a document the
// block writer does not cover (a bare scalar, or a key that is not plain or longer than a simple
// key may be).
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

std::string encode_with_emitter(const json::value& value) {
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetSeqFormat(YAML::Block);
  out.SetMapFormat(YAML::Block);
  emit(out, value);
  std::string text = out.c_str();
  if (text.empty() || text.back() != '\n') text += '\n';
  return text;
}

// yaml-cpp writes a key longer than this as an explicit `? key` entry.
constexpr std::size_t kMaxSimpleKey = 1024;

class BlockWriter {
 public:
  explicit BlockWriter(std::string& out) : out_(out) {}

  // Writes `v`; false (with part of it written) when a key cannot be written plain and simple.
  [[nodiscard]] bool document(const json::value& v) {
    if (const auto* obj = v.if_object(); obj != nullptr && !obj->empty()) {
      map_entries(*obj, 0, false);
    } else if (const auto* arr = v.if_array(); arr != nullptr && !arr->empty()) {
      seq_items(*arr, 0, false);
    } else {
      inline_node(v, 0);
    }
    return ok_;
  }

 private:
  void spaces(std::size_t n) { out_.append(n, ' '); }

  // A node that follows `key: ` or `- ` on the same line, or stands alone (`{}`, `[]`, scalars);
  // `indent` is where the lines of a literal block start.
  void inline_node(const json::value& v, std::size_t indent) {
    switch (v.kind()) {
      case json::kind::object: out_ += "{}\n"; return;
      case json::kind::array: out_ += "[]\n"; return;
      case json::kind::string: string_scalar(v.get_string(), indent); return;
      case json::kind::bool_: out_ += v.get_bool() ? "true\n" : "false\n"; return;
      case json::kind::null: out_ += "~\n"; return;
      case json::kind::int64: out_ += std::to_string(v.get_int64()); break;
      case json::kind::uint64: out_ += std::to_string(v.get_uint64()); break;
      case json::kind::double_: out_ += detail::double_text(v.get_double()); break;
    }
    out_ += '\n';
  }

  void string_scalar(std::string_view s, std::size_t indent) {
    if (can_be_plain(s)) {
      out_ += s;
      out_ += '\n';
    } else if (can_be_literal(s)) {
      out_ += "|\n";
      std::size_t start = 0;
      while (start < s.size()) {
        const std::size_t end = s.find('\n', start);
        if (end > start) spaces(indent);
        out_.append(s.data() + start, end - start);
        out_ += '\n';
        start = end + 1;
      }
    } else {
      YAML::Emitter quoted;
      quoted << YAML::DoubleQuoted << std::string(s);
      out_ += quoted.c_str();
      out_ += '\n';
    }
  }

  // The value of a map entry whose `key:` is written; the entry's key is at `indent`.
  void entry_value(const json::value& v, std::size_t indent) {
    if (const auto* obj = v.if_object(); obj != nullptr && !obj->empty()) {
      out_ += '\n';
      map_entries(*obj, indent + 2, false);
    } else if (const auto* arr = v.if_array(); arr != nullptr && !arr->empty()) {
      out_ += '\n';
      seq_items(*arr, indent + 2, false);
    } else {
      out_ += ' ';
      inline_node(v, indent + 2);
    }
  }

  // Entries at `indent`; the first one continues the current line when `first_inline`.
  void map_entries(const json::object& obj, std::size_t indent, bool first_inline) {
    bool first = true;
    for (const auto& kv : obj) {
      if (!ok_ || kv.key().size() > kMaxSimpleKey || !can_be_plain(kv.key())) {
        ok_ = false;
        return;
      }
      if (!first || !first_inline) spaces(indent);
      first = false;
      out_ += kv.key();
      out_ += ':';
      entry_value(kv.value(), indent);
    }
  }

  // Items with their `- ` at `indent`; the first continues the current line when `first_inline`.
  void seq_items(const json::array& arr, std::size_t indent, bool first_inline) {
    bool first = true;
    for (const auto& item : arr) {
      if (!ok_) return;
      if (!first || !first_inline) spaces(indent);
      first = false;
      out_ += "- ";
      if (const auto* obj = item.if_object(); obj != nullptr && !obj->empty()) {
        map_entries(*obj, indent + 2, true);
      } else if (const auto* nested = item.if_array(); nested != nullptr && !nested->empty()) {
        seq_items(*nested, indent + 2, true);
      } else {
        inline_node(item, indent + 2);
      }
    }
  }

  std::string& out_;
  bool ok_ = true;
};

void append_yaml(std::string& out, const json::value& value) {
  if (value.is_object() || value.is_array()) {
    const std::size_t start = out.size();
    if (BlockWriter(out).document(value)) return;
    out.resize(start);
  }
  out += encode_with_emitter(value);
}

}  // namespace

std::string encode_yaml(const boost::json::value& value) {
  std::string text;
  append_yaml(text, value);
  return text;
}

std::string encode_yaml_stream(const std::vector<boost::json::value>& documents) {
  std::string text;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    if (i != 0) text += "---\n";
    append_yaml(text, documents[i]);
  }
  return text;
}

}  // namespace trainer
