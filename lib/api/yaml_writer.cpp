// SPDX-License-Identifier: Apache-2.0
//
// encode_yaml: block YAML, indent 2, sequences inside maps indented, a map inside a sequence
// starting on the `- ` line, empty collections as `{}`/`[]` on the line of their key or dash.
//
// One decision (scalar_style) picks how every string is written, key or value: plain only when
// our reader reads it back as the same string; otherwise a literal block (values only) when that
// reproduces it exactly, else double-quoted with escapes this file writes. A key whose written
// form is longer than yaml-cpp reads as a simple key (1024 bytes, quotes included) becomes an
// explicit `? key` entry. Everything is written straight into the output: yaml-cpp's emitter ran
// its plain-scalar regular expressions on every scalar (half the time of a whole render), and it
// decided key lengths on the raw text, writing quoted keys it could not read back.
#include "api/number_text.hpp"
#include "api/yaml_scalar.hpp"
#include "trainer/codec.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>

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
  // At the start of a line (a bare scalar, a key at indent 0) these end or start a document.
  if (s.substr(0, 3) == "..." || s.substr(0, 3) == "---") return false;
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

// The code point of the UTF-8 sequence at `s[i]`, and its length in `len`. Decoded text is valid
// UTF-8 (the readers check it); a byte that starts no valid sequence stands for itself.
std::uint32_t code_point(std::string_view s, std::size_t i, std::size_t& len) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  len = 1;
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if ((b0 & 0xE0U) == 0xC0U) {
    n = 2;
    cp = b0 & 0x1FU;
  } else if ((b0 & 0xF0U) == 0xE0U) {
    n = 3;
    cp = b0 & 0x0FU;
  } else if ((b0 & 0xF8U) == 0xF0U) {
    n = 4;
    cp = b0 & 0x07U;
  } else {
    return b0;
  }
  if (i + n > s.size()) return b0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0U) != 0x80U) return b0;
    cp = (cp << 6U) | (b & 0x3FU);
  }
  len = n;
  return cp;
}

// Characters that must be escaped in a double-quoted scalar and cannot stand in a literal block:
// C0 controls (a literal block allows tab and newline), DEL, C1 controls (NEL is a line break
// to YAML 1.1 readers), the line and paragraph separators and the byte order mark.
bool needs_escape(std::uint32_t cp) {
  return cp < 0x20U || cp == 0x7FU || (cp >= 0x80U && cp <= 0x9FU) || cp == 0x2028U ||
         cp == 0x2029U || cp == 0xFEFFU;
}

// A literal block with clip chomping keeps exactly one final newline; we write no chomping or
// indentation indicator, so only such strings can use it.
bool can_be_literal(std::string_view s) {
  if (s.size() < 2 || s.back() != '\n' || s[s.size() - 2] == '\n') return false;
  if (s.front() == ' ' || s.front() == '\n' || s.front() == '\t') return false;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len = 1;
    const std::uint32_t cp = code_point(s, i, len);
    if (needs_escape(cp) && cp != '\n' && cp != '\t') return false;
    i += len;
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

enum class Style { kPlain, kLiteral, kDoubleQuoted };

// How a string is written, as a map key (`key`) or as any other scalar. The one place this is
// decided.
Style scalar_style(std::string_view s, bool key) {
  if (can_be_plain(s)) return Style::kPlain;
  if (!key && can_be_literal(s)) return Style::kLiteral;
  return Style::kDoubleQuoted;
}

void append_double_quoted(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len = 1;
    const std::uint32_t cp = code_point(s, i, len);
    if (cp == '"' || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (needs_escape(cp)) {
      // \xNN and \uNNNN decode to the code point's UTF-8 (yaml-cpp's \N and \_ do not).
      const int digits = cp <= 0xFFU ? 2 : 4;
      out += digits == 2 ? "\\x" : "\\u";
      for (int d = digits - 1; d >= 0; --d)
        out += kHex[(cp >> (4U * static_cast<unsigned>(d))) & 0xFU];
    } else {
      out.append(s.data() + i, len);
    }
    i += len;
  }
  out += '"';
}

// yaml-cpp reads a key written on one line up to this many bytes (quotes included) as a simple
// key; a longer key needs the explicit `? ` form.
constexpr std::size_t kMaxSimpleKey = 1024;

class BlockWriter {
 public:
  explicit BlockWriter(std::string& out) : out_(out) {}

  void document(const json::value& v) {
    if (const auto* obj = v.if_object(); obj != nullptr && !obj->empty()) {
      map_entries(*obj, 0, false);
    } else if (const auto* arr = v.if_array(); arr != nullptr && !arr->empty()) {
      seq_items(*arr, 0, false);
    } else {
      // A bare scalar: a literal block still needs indented lines.
      inline_node(v, 2);
    }
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
    switch (scalar_style(s, false)) {
      case Style::kPlain: out_ += s; break;
      case Style::kDoubleQuoted: append_double_quoted(out_, s); break;
      case Style::kLiteral: {
        out_ += "|\n";
        std::size_t start = 0;
        while (start < s.size()) {
          const std::size_t end = s.find('\n', start);
          if (end > start) spaces(indent);
          out_.append(s.data() + start, end - start);
          out_ += '\n';
          start = end + 1;
        }
        return;
      }
    }
    out_ += '\n';
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
      if (!first || !first_inline) spaces(indent);
      first = false;
      key_.clear();
      if (scalar_style(kv.key(), true) == Style::kPlain) {
        key_ += kv.key();
      } else {
        append_double_quoted(key_, kv.key());
      }
      if (key_.size() > kMaxSimpleKey) {
        out_ += "? ";
        out_ += key_;
        out_ += '\n';
        spaces(indent);
      } else {
        out_ += key_;
      }
      out_ += ':';
      entry_value(kv.value(), indent);
    }
  }

  // Items with their `- ` at `indent`; the first continues the current line when `first_inline`.
  void seq_items(const json::array& arr, std::size_t indent, bool first_inline) {
    bool first = true;
    for (const auto& item : arr) {
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
  std::string key_;  // the written form of the key being written
};

}  // namespace

std::string encode_yaml(const boost::json::value& value) {
  std::string text;
  BlockWriter(text).document(value);
  return text;
}

std::string encode_yaml_stream(const std::vector<boost::json::value>& documents) {
  std::string text;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    if (i != 0) text += "---\n";
    BlockWriter(text).document(documents[i]);
  }
  return text;
}

}  // namespace trainer
