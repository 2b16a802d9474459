// SPDX-License-Identifier: Apache-2.0
// The parser follows client-go's (util/jsonpath/parser.go) position for position, so that a
// template kubectl accepts reads the same here and one it refuses is refused with its message;
// the evaluator follows its FindResults, with missing keys allowed.
#include "jsonpath.hpp"

#include "api/ascii.hpp"
#include "api/number_text.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <optional>
#include <utility>

namespace trainerctl {

namespace json = boost::json;

enum class NodeKind {
  kList,
  kText,
  kField,
  kArray,
  kFilter,
  kInt,
  kFloat,
  kBool,
  kWildcard,
  kRecursive,
  kUnion,
  kIdentifier
};

// One bound of a slice `[start:end:step]`.
struct SliceParam {
  bool known = false;
  std::int64_t value = 0;
  bool derived = false;  // the end of `[n]`: n + 1
};

struct JsonPath::Node {
  NodeKind kind = NodeKind::kList;
  std::string text;                  // field name, identifier, filter operator
  std::vector<Node> nodes;           // list: its steps; union: lists; filter: left, right lists
  std::array<SliceParam, 3> params;  // array
  json::value literal;               // text, int, float, bool
};

namespace {

using Node = JsonPath::Node;
template <typename T>
using Expected = tl::expected<T, std::string>;

tl::unexpected<std::string> error(std::string message) {
  return tl::unexpected(std::move(message));
}

using trainer::ascii::is_digit;

// Go's unicode.IsLetter/IsDigit or `_`; bytes of multi-byte UTF-8 count as letters.
bool is_alphanumeric(char c) {
  const auto u = static_cast<unsigned char>(c);
  return c == '_' || is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || u >= 0x80;
}

// Where an identifier or a field name ends.
bool is_terminator(char c) {
  switch (c) {
    case ' ':
    case '\t':
    case '\r':
    case '\n':
    case '.':
    case ',':
    case '[':
    case ']':
    case '$':
    case '@':
    case '{':
    case '}': return true;
    default: return false;
  }
}

std::string unicode_label(char c) {
  // Go's %#U of the rune.
  char buf[16];
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) {
    std::snprintf(buf, sizeof buf, "U+%04X '%c'", u, c);
  } else {
    std::snprintf(buf, sizeof buf, "U+%04X", u);
  }
  return buf;
}

void append_utf8(std::string& out, std::uint32_t rune) {
  if (rune < 0x80) {
    out += static_cast<char>(rune);
  } else if (rune < 0x800) {
    out += static_cast<char>(0xC0 | (rune >> 6U));
    out += static_cast<char>(0x80 | (rune & 0x3FU));
  } else if (rune < 0x10000) {
    out += static_cast<char>(0xE0 | (rune >> 12U));
    out += static_cast<char>(0x80 | ((rune >> 6U) & 0x3FU));
    out += static_cast<char>(0x80 | (rune & 0x3FU));
  } else {
    out += static_cast<char>(0xF0 | (rune >> 18U));
    out += static_cast<char>(0x80 | ((rune >> 12U) & 0x3FU));
    out += static_cast<char>(0x80 | ((rune >> 6U) & 0x3FU));
    out += static_cast<char>(0x80 | (rune & 0x3FU));
  }
}

std::optional<std::uint32_t> hex_value(std::string_view digits) {
  std::uint32_t v = 0;
  for (const char c : digits) {
    v <<= 4U;
    if (is_digit(c)) {
      v |= static_cast<std::uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      v |= static_cast<std::uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      v |= static_cast<std::uint32_t>(c - 'A' + 10);
    } else {
      return std::nullopt;
    }
  }
  return v;
}

// Go's strconv.Unquote, taking single quotes too (client-go's UnquoteExtend).
std::optional<std::string> unquote(std::string_view s) {
  if (s.size() < 2 || s.front() != s.back() || (s.front() != '"' && s.front() != '\'')) {
    return std::nullopt;
  }
  const char quote = s.front();
  s = s.substr(1, s.size() - 2);
  std::string out;
  while (!s.empty()) {
    const char c = s[0];
    if (c == quote) return std::nullopt;
    if (c != '\\') {
      out += c;
      s.remove_prefix(1);
      continue;
    }
    if (s.size() < 2) return std::nullopt;
    const char e = s[1];
    s.remove_prefix(2);
    switch (e) {
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case '\\': out += '\\'; break;
      case '\'':
      case '"':
        if (e != quote) return std::nullopt;
        out += e;
        break;
      case 'x':
      case 'u':
      case 'U': {
        const std::size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        if (s.size() < n) return std::nullopt;
        const auto v = hex_value(s.substr(0, n));
        if (!v) return std::nullopt;
        s.remove_prefix(n);
        if (e == 'x') {
          out += static_cast<char>(*v);
        } else {
          if (*v > 0x10FFFF || (*v >= 0xD800 && *v < 0xE000)) return std::nullopt;
          append_utf8(out, *v);
        }
        break;
      }
      default: {
        if (e < '0' || e > '7' || s.size() < 2) return std::nullopt;
        std::uint32_t v = static_cast<std::uint32_t>(e - '0');
        for (int i = 0; i < 2; ++i) {
          if (s[0] < '0' || s[0] > '7') return std::nullopt;
          v = v * 8 + static_cast<std::uint32_t>(s[0] - '0');
          s.remove_prefix(1);
        }
        if (v > 255) return std::nullopt;
        out += static_cast<char>(v);
      }
    }
  }
  return out;
}

std::optional<std::int64_t> parse_int(std::string_view text) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

Node list_node() {
  return Node{};
}

Node leaf(NodeKind kind, std::string text = {}) {
  Node n;
  n.kind = kind;
  n.text = std::move(text);
  return n;
}

Node literal_node(NodeKind kind, json::value value) {
  Node n;
  n.kind = kind;
  n.literal = std::move(value);
  return n;
}

class Parser {
 public:
  explicit Parser(std::string_view input) : in_(input) {}

  // The template: text and actions, each action a list.
  Expected<Node> parse() {
    Node root = list_node();
    while (pos_ < in_.size()) {
      const std::size_t open = in_.find('{', pos_);
      if (open == std::string_view::npos) {
        root.nodes.push_back(literal_node(NodeKind::kText, json::string(in_.substr(pos_))));
        break;
      }
      if (open > pos_) {
        root.nodes.push_back(
            literal_node(NodeKind::kText, json::string(in_.substr(pos_, open - pos_))));
      }
      pos_ = open + 1;
      root.nodes.push_back(list_node());
      if (auto ok = parse_action(root.nodes.back()); !ok) return tl::unexpected(ok.error());
    }
    return root;
  }

 private:
  bool at(std::string_view prefix) const {
    return in_.substr(pos_).substr(0, prefix.size()) == prefix;
  }
  char peek() const { return pos_ < in_.size() ? in_[pos_] : '\0'; }

  // Inside `{...}`, up to and with its `}`.
  Expected<void> parse_action(Node& cur) {
    for (;;) {
      if (at("}")) {
        ++pos_;
        return {};
      }
      Expected<void> step;
      if (at("[?(")) {
        step = parse_filter(cur);
      } else if (at("..")) {
        step = parse_recursive(cur);
      } else {
        if (pos_ >= in_.size()) return error("unclosed action");
        const char c = in_[pos_++];
        if (c == '\r' || c == '\n') return error("unclosed action");
        if (c == ' ' || c == '@' || c == '$') continue;
        if (c == '[') {
          step = parse_array(cur);
        } else if (c == '"' || c == '\'') {
          step = parse_quote(cur, c);
        } else if (c == '.') {
          step = parse_field(cur);
        } else if (c == '+' || c == '-' || is_digit(c)) {
          --pos_;
          step = parse_number(cur);
        } else if (is_alphanumeric(c)) {
          --pos_;
          step = parse_identifier(cur);
        } else {
          return error("unrecognized character in action: " + unicode_label(c));
        }
      }
      if (!step) return step;
    }
  }

  // `text` as an action of its own (client-go's parseAction): its one list.
  static Expected<Node> sub_action(const std::string& text) {
    const std::string action = "{" + text + "}";
    Parser parser(action);
    auto root = parser.parse();
    if (!root) return tl::unexpected(root.error());
    if (root->nodes.empty() || root->nodes[0].kind != NodeKind::kList) {
      return error("invalid syntax");
    }
    return std::move(root->nodes[0]);
  }

  Expected<void> parse_identifier(Node& cur) {
    const std::size_t begin = pos_;
    while (pos_ < in_.size() && !is_terminator(in_[pos_])) ++pos_;
    const std::string value(in_.substr(begin, pos_ - begin));
    if (value == "true" || value == "false") {
      cur.nodes.push_back(literal_node(NodeKind::kBool, value == "true"));
    } else {
      cur.nodes.push_back(leaf(NodeKind::kIdentifier, value));
    }
    return {};
  }

  Expected<void> parse_recursive(Node& cur) {
    if (!cur.nodes.empty() && cur.nodes.back().kind == NodeKind::kRecursive) {
      return error("invalid multiple recursive descent");
    }
    pos_ += 2;
    cur.nodes.push_back(leaf(NodeKind::kRecursive));
    if (is_alphanumeric(peek())) return parse_field(cur);
    return {};
  }

  Expected<void> parse_number(Node& cur) {
    const std::size_t begin = pos_;
    if (peek() == '+' || peek() == '-') ++pos_;
    while (pos_ < in_.size() && (in_[pos_] == '.' || is_digit(in_[pos_]))) ++pos_;
    const std::string_view value = in_.substr(begin, pos_ - begin);
    if (const auto i = parse_int(value)) {
      cur.nodes.push_back(literal_node(NodeKind::kInt, *i));
      return {};
    }
    if (const auto d = trainer::detail::parse_float(value)) {
      cur.nodes.push_back(literal_node(NodeKind::kFloat, *d));
      return {};
    }
    return error("cannot parse number " + std::string(value));
  }

  // After `[`: an index, a slice, a quoted key or a union.
  Expected<void> parse_array(Node& cur) {
    const std::size_t begin = pos_;
    for (;;) {
      if (pos_ >= in_.size() || in_[pos_] == '\n') return error("unterminated array");
      if (in_[pos_++] == ']') break;
    }
    std::string text(in_.substr(begin, pos_ - 1 - begin));
    if (text == "*") text = ":";

    if (text.find(',') != std::string::npos) {
      Node u = leaf(NodeKind::kUnion);
      std::size_t start = 0;
      for (;;) {
        const std::size_t comma = text.find(',', start);
        std::string part = text.substr(start, comma - start);
        part.erase(0, part.find_first_not_of(' '));
        part.erase(part.find_last_not_of(' ') + 1);
        auto member = sub_action("[" + part + "]");
        if (!member) return tl::unexpected(member.error());
        u.nodes.push_back(std::move(*member));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      cur.nodes.push_back(std::move(u));
      return {};
    }
    // ['key']: the key read as `.key` (a dot in it needs `\.`, as in client-go).
    if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'' &&
        text.find('\'', 1) == text.size() - 1) {
      auto key = sub_action("." + text.substr(1, text.size() - 2));
      if (!key) return tl::unexpected(key.error());
      for (auto& node : key->nodes) cur.nodes.push_back(std::move(node));
      return {};
    }
    // [start:end:step], each part `-?\d*`.
    std::array<std::string, 3> parts;
    std::array<bool, 3> present{};
    std::size_t i = 0;
    for (std::size_t part = 0; part < 3; ++part) {
      if (part > 0) {
        if (i >= text.size()) break;
        if (text[i] != ':') return error("invalid array index " + text);
        ++i;
      }
      present[part] = true;
      const std::size_t start = i;
      if (i < text.size() && text[i] == '-') ++i;
      while (i < text.size() && is_digit(text[i])) ++i;
      parts[part] = text.substr(start, i - start);
    }
    if (i != text.size()) return error("invalid array index " + text);
    Node array = leaf(NodeKind::kArray);
    for (std::size_t part = 0; part < 3; ++part) {
      SliceParam& p = array.params[part];
      // The first part is always "present"; a later one without its `:` is absent.
      const bool given = part == 0 ? !parts[0].empty() : present[part];
      if (given && !(part > 0 && parts[part].empty())) {
        const auto v = parse_int(parts[part]);
        if (!v) return error("array index " + parts[part] + " is not a number");
        p.known = true;
        p.value = *v;
      } else if (!given && part == 1) {
        p.known = true;
        p.value = array.params[0].value + 1;
        p.derived = true;
      }
    }
    cur.nodes.push_back(std::move(array));
    return {};
  }

  // `[?(left op right)]` or `[?(path)]`.
  Expected<void> parse_filter(Node& cur) {
    pos_ += 3;
    const std::size_t begin = pos_;
    bool quote_begin = false;
    bool quote_end = false;
    char pair = '\0';
    for (;;) {
      if (pos_ >= in_.size() || in_[pos_] == '\n') return error("unterminated filter");
      const char c = in_[pos_++];
      if (c == '"' || c == '\'') {
        if (!quote_begin) {
          quote_begin = true;
          pair = c;
          continue;
        }
        if (in_[pos_ - 2] != '\\' && c == pair) quote_end = true;
      } else if (c == ')' && quote_begin == quote_end) {
        break;
      }
    }
    if (pos_ >= in_.size() || in_[pos_++] != ']') return error("unclosed array expect ]");
    const std::string text(in_.substr(begin, pos_ - 2 - begin));
    Node filter = leaf(NodeKind::kFilter);
    // ^([^!<>=]+)([!<>=~]+)(.+?)$
    const std::size_t op_begin = text.find_first_of("!<>=");
    const std::size_t op_end =
        op_begin == std::string::npos ? op_begin : text.find_first_not_of("!<>=~", op_begin);
    if (op_begin == std::string::npos || op_begin == 0 || op_end == std::string::npos) {
      auto path = sub_action(text);
      if (!path) return tl::unexpected(path.error());
      filter.text = "exists";
      filter.nodes.push_back(std::move(*path));
      filter.nodes.push_back(list_node());
    } else {
      auto left = sub_action(text.substr(0, op_begin));
      if (!left) return tl::unexpected(left.error());
      auto right = sub_action(text.substr(op_end));
      if (!right) return tl::unexpected(right.error());
      filter.text = text.substr(op_begin, op_end - op_begin);
      filter.nodes.push_back(std::move(*left));
      filter.nodes.push_back(std::move(*right));
    }
    cur.nodes.push_back(std::move(filter));
    return {};
  }

  Expected<void> parse_quote(Node& cur, char end) {
    const std::size_t begin = pos_ - 1;
    for (;;) {
      if (pos_ >= in_.size() || in_[pos_] == '\n') {
        return error("unterminated quoted string");
      }
      const char c = in_[pos_++];
      if (c == end && in_[pos_ - 2] != '\\') break;
    }
    const std::string_view value = in_.substr(begin, pos_ - begin);
    auto text = unquote(value);
    if (!text) return error("unquote string " + std::string(value) + " error invalid syntax");
    cur.nodes.push_back(literal_node(NodeKind::kText, json::string(*text)));
    return {};
  }

  // After `.`: a name up to the next unescaped terminator; `*` is the wildcard.
  Expected<void> parse_field(Node& cur) {
    const std::size_t begin = pos_;
    while (pos_ < in_.size()) {
      if (in_[pos_] == '\\') {
        pos_ = std::min(pos_ + 2, in_.size());
      } else if (is_terminator(in_[pos_])) {
        break;
      } else {
        ++pos_;
      }
    }
    std::string value(in_.substr(begin, pos_ - begin));
    if (value == "*") {
      cur.nodes.push_back(leaf(NodeKind::kWildcard));
    } else {
      value.erase(std::remove(value.begin(), value.end(), '\\'), value.end());
      cur.nodes.push_back(leaf(NodeKind::kField, value));
    }
    return {};
  }

  std::string_view in_;
  std::size_t pos_ = 0;
};

// ---- Evaluation ------------------------------------------------------------------------------

using Values = std::vector<const json::value*>;

// Go's reflect type name of a value of an unstructured object, for messages.
std::string go_type(const json::value& v) {
  switch (v.kind()) {
    case json::kind::object: return "map[string]interface {}";
    case json::kind::array: return "[]interface {}";
    case json::kind::string: return "string";
    case json::kind::int64: return "int64";
    case json::kind::uint64: return "uint64";
    case json::kind::double_: return "float64";
    case json::kind::bool_: return "bool";
    case json::kind::null: return "<nil>";
  }
  return "<nil>";
}

// An object's entries in Go's map order for printing: sorted by key.
std::vector<const json::key_value_pair*> sorted_entries(const json::object& object) {
  std::vector<const json::key_value_pair*> entries;
  entries.reserve(object.size());
  for (const auto& kv : object) entries.push_back(&kv);
  std::sort(entries.begin(), entries.end(),
            [](const auto* a, const auto* b) { return a->key() < b->key(); });
  return entries;
}

// text/template's basic kinds, for comparisons.
enum class Basic { kBool, kInt, kUint, kFloat, kString, kInvalid };

Basic basic_kind(const json::value& v) {
  switch (v.kind()) {
    case json::kind::bool_: return Basic::kBool;
    case json::kind::int64: return Basic::kInt;
    case json::kind::uint64: return Basic::kUint;
    case json::kind::double_: return Basic::kFloat;
    case json::kind::string: return Basic::kString;
    default: return Basic::kInvalid;
  }
}

// text/template's eq/lt (client-go's fork): -1, 0, 1, or the error.
Expected<int> compare(const json::value& a, const json::value& b, bool ordering) {
  const Basic ka = basic_kind(a);
  const Basic kb = basic_kind(b);
  if (ka == Basic::kInvalid || kb == Basic::kInvalid) {
    return error("invalid type for comparison");
  }
  const auto sign = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  if (ka != kb) {
    // Integers compare across signedness; nothing else mixes.
    if (ka == Basic::kInt && kb == Basic::kUint) {
      const std::int64_t x = a.get_int64();
      return x < 0 ? -1 : sign(static_cast<std::uint64_t>(x), b.get_uint64());
    }
    if (ka == Basic::kUint && kb == Basic::kInt) {
      const std::int64_t y = b.get_int64();
      return y < 0 ? 1 : sign(a.get_uint64(), static_cast<std::uint64_t>(y));
    }
    return error("incompatible types for comparison");
  }
  switch (ka) {
    case Basic::kBool:
      if (ordering) return error("invalid type for comparison");
      return a.get_bool() == b.get_bool() ? 0 : 1;
    case Basic::kInt: return sign(a.get_int64(), b.get_int64());
    case Basic::kUint: return sign(a.get_uint64(), b.get_uint64());
    case Basic::kFloat: {
      const double x = a.get_double();
      const double y = b.get_double();
      if (!ordering) return x == y ? 0 : 1;
      return sign(x, y);
    }
    case Basic::kString: return sign(a.get_string(), b.get_string());
    case Basic::kInvalid: break;
  }
  return error("invalid type for comparison");
}

// Whether a comparison's result `order` (-1, 0, 1) satisfies `op`.
bool passes(const std::string& op, int order) {
  if (op == "==") return order == 0;
  if (op == "!=") return order != 0;
  if (op == "<") return order < 0;
  if (op == ">") return order > 0;
  if (op == "<=") return order <= 0;
  return order >= 0;
}

class Evaluator {
 public:
  Expected<Values> walk(const Values& input, const Node& node) {
    switch (node.kind) {
      case NodeKind::kList: return list(input, node);
      case NodeKind::kText: return Values{&node.literal};
      case NodeKind::kInt:
      case NodeKind::kFloat:
      case NodeKind::kBool: return Values(input.size(), &node.literal);
      case NodeKind::kField: return field(input, node);
      case NodeKind::kArray: return array(input, node);
      case NodeKind::kFilter: return filter(input, node);
      case NodeKind::kWildcard: {
        Values out;
        for (const auto* v : input) children(*v, out);
        return out;
      }
      case NodeKind::kRecursive: {
        Values out;
        recursive(input, out);
        return out;
      }
      case NodeKind::kUnion: {
        Values out;
        for (const auto& member : node.nodes) {
          auto found = list(input, member);
          if (!found) return found;
          out.insert(out.end(), found->begin(), found->end());
        }
        return out;
      }
      case NodeKind::kIdentifier:
        if (node.text == "range") return input;
        if (node.text == "end") return Values{};
        return error("unrecognized identifier " + node.text);
    }
    return error("unexpected node");
  }

  Expected<Values> list(const Values& input, const Node& node) {
    Values current = input;
    for (const auto& step : node.nodes) {
      auto next = walk(current, step);
      if (!next) return next;
      current = std::move(*next);
    }
    return current;
  }

 private:
  // A string's bytes as numbers (what Go's reflect indexing of a string gives).
  const json::value* byte_value(unsigned char b) {
    owned_.emplace_back(static_cast<std::uint64_t>(b));
    return &owned_.back();
  }

  void children(const json::value& v, Values& out) {
    if (const auto* object = v.if_object()) {
      for (const auto* kv : sorted_entries(*object)) out.push_back(&kv->value());
    } else if (const auto* array = v.if_array()) {
      for (const auto& item : *array) out.push_back(&item);
    } else if (const auto* string = v.if_string()) {
      for (const char c : *string) out.push_back(byte_value(static_cast<unsigned char>(c)));
    }
  }

  void recursive(const Values& input, Values& out) {
    for (const auto* v : input) {
      Values inner;
      children(*v, inner);
      if (inner.empty()) continue;
      out.push_back(v);
      recursive(inner, out);
    }
  }

  static Expected<Values> field(const Values& input, const Node& node) {
    Values out;
    for (const auto* v : input) {
      const auto* object = v->if_object();
      if (object == nullptr) continue;
      if (const auto* found = object->if_contains(node.text)) out.push_back(found);
    }
    return out;
  }

  static Expected<Values> array(const Values& input, const Node& node) {
    Values out;
    for (const auto* v : input) {
      if (v->is_null()) continue;
      const auto* items = v->if_array();
      if (items == nullptr) return tl::unexpected(go_type(*v) + " is not array or slice");
      const auto length = static_cast<std::int64_t>(items->size());
      auto params = node.params;
      if (!params[0].known) params[0].value = 0;
      if (params[0].value < 0) params[0].value += length;
      if (!params[1].known) params[1].value = length;
      if (params[1].value < 0 || (params[1].value == 0 && params[1].derived)) {
        params[1].value += length;
      }
      if (params[1].value == params[0].value) continue;  // zero elements asked for
      if (params[0].value >= length || params[0].value < 0) {
        return error("array index out of bounds: index " + std::to_string(params[0].value) +
                     ", length " + std::to_string(length));
      }
      if (params[1].value > length || params[1].value < 0) {
        return error("array index out of bounds: index " + std::to_string(params[1].value - 1) +
                     ", length " + std::to_string(length));
      }
      if (params[0].value > params[1].value) {
        return error("starting index " + std::to_string(params[0].value) +
                     " is greater than ending index " + std::to_string(params[1].value));
      }
      std::int64_t step = 1;
      if (params[2].known) {
        if (params[2].value <= 0) return error("step must be > 0");
        step = params[2].value;
      }
      for (std::int64_t i = params[0].value; i < params[1].value; i += step) {
        out.push_back(&(*items)[static_cast<std::size_t>(i)]);
      }
    }
    return out;
  }

  Expected<Values> filter(const Values& input, const Node& node) {
    Values out;
    const Node& left_path = node.nodes[0];
    const Node& right_path = node.nodes[1];
    for (const auto* v : input) {
      const auto* items = v->if_array();
      if (items == nullptr) {
        return tl::unexpected(go_sprint(*v) + " is not array or slice and cannot be filtered");
      }
      for (const auto& item : *items) {
        const Values element{&item};
        auto lefts = list(element, left_path);
        if (node.text == "exists") {
          if (lefts && !lefts->empty()) out.push_back(&item);
          continue;
        }
        if (!lefts) return lefts;
        if (lefts->empty()) continue;
        if (lefts->size() > 1) return error("can only compare one element at a time");
        auto rights = list(element, right_path);
        if (!rights) return rights;
        if (rights->empty()) continue;
        if (rights->size() > 1) return error("can only compare one element at a time");
        const std::string& op = node.text;
        if (op != "<" && op != ">" && op != "==" && op != "!=" && op != "<=" && op != ">=") {
          return error("unrecognized filter operator " + op);
        }
        const bool ordering = op != "==" && op != "!=";
        auto order = compare(*(*lefts)[0], *(*rights)[0], ordering);
        if (!order) return tl::unexpected(order.error());
        if (passes(op, *order)) out.push_back(&item);
      }
    }
    return out;
  }

  std::deque<json::value> owned_;
};

bool has_identifier(const Node& node, std::string_view name) {
  if (node.kind != NodeKind::kList) return false;
  return std::any_of(node.nodes.begin(), node.nodes.end(), [&](const Node& n) {
    return n.kind == NodeKind::kIdentifier && n.text == name;
  });
}

// The index after the `{end}` that closes the range whose body starts at `i` (or the end).
std::size_t range_end(const std::vector<Node>& nodes, std::size_t i) {
  int depth = 0;
  for (; i < nodes.size(); ++i) {
    if (has_identifier(nodes[i], "end")) {
      if (depth == 0) return i + 1;
      --depth;
    } else if (has_identifier(nodes[i], "range")) {
      ++depth;
    }
  }
  return nodes.size();
}

// Runs nodes[i...] on `data` up to the `{end}` that closes the current range (when `in_range`),
// appending each part's results to `out`.
Expected<void> run(Evaluator& eval, const std::vector<Node>& nodes, std::size_t i,
                   const json::value* data, bool in_range, JsonPath::Results& out) {
  for (; i < nodes.size(); ++i) {
    const Node& node = nodes[i];
    if (has_identifier(node, "end")) {
      if (!in_range) return error("not in range, nothing to end");
      return {};
    }
    auto results = eval.walk(Values{data}, node);
    if (!results) return tl::unexpected(results.error());
    if (has_identifier(node, "range")) {
      for (const auto* element : *results) {
        if (auto ok = run(eval, nodes, i + 1, element, true, out); !ok) return ok;
      }
      i = range_end(nodes, i + 1) - 1;
      continue;
    }
    auto& part = out.emplace_back();
    part.reserve(results->size());
    for (const auto* v : *results) part.push_back(*v);
  }
  return {};
}

// Go's strconv.FormatFloat(d, 'g' or 'e' or 'f', -1, 64) pieces: the shortest digits and the
// decimal exponent of the first one.
void shortest_digits(double d, std::string& digits, int& exponent) {
  std::array<char, 40> buf{};
  const auto r =
      std::to_chars(buf.data(), buf.data() + buf.size(), d, std::chars_format::scientific);
  const std::string_view text(buf.data(), static_cast<std::size_t>(r.ptr - buf.data()));
  const std::size_t e = text.find('e');
  digits.clear();
  for (const char c : text.substr(0, e)) {
    if (is_digit(c)) digits += c;
  }
  exponent = std::stoi(std::string(text.substr(e + 1)));
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
}

std::string fixed_text(const std::string& digits, int exponent) {
  std::string out;
  if (exponent < 0) {
    out = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  } else {
    const auto whole = static_cast<std::size_t>(exponent) + 1;
    if (digits.size() <= whole) {
      out = digits + std::string(whole - digits.size(), '0');
    } else {
      out = digits.substr(0, whole) + "." + digits.substr(whole);
    }
  }
  return out;
}

std::string exponent_text(const std::string& digits, int exponent, bool json_style) {
  std::string out = digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  char buf[16];
  const int magnitude = exponent < 0 ? -exponent : exponent;
  // Go writes at least two exponent digits; json.Marshal drops the zero of e-0N.
  std::snprintf(buf, sizeof buf, json_style && exponent < 0 ? "e%c%d" : "e%c%02d",
                exponent < 0 ? '-' : '+', magnitude);
  return out + buf;
}

std::string go_float(double d, bool json_style) {
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  std::string digits;
  int exponent = 0;
  shortest_digits(d < 0 ? -d : d, digits, exponent);
  const double magnitude = d < 0 ? -d : d;
  // %v: %e below 1e-4 and from 1e+06 on (precision 6 for the shortest form, strconv's rule);
  // json.Marshal: %e below 1e-6 and from 1e+21 on.
  const bool exp_form =
      json_style ? (magnitude < 1e-6 || magnitude >= 1e21) : (exponent < -4 || exponent >= 6);
  const std::string text =
      exp_form ? exponent_text(digits, exponent, json_style) : fixed_text(digits, exponent);
  return d < 0 ? "-" + text : text;
}

// The length of the valid UTF-8 sequence at `s[i]`, 0 when there is none.
std::size_t utf8_length(std::string_view s, std::size_t i, std::uint32_t& rune) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  std::uint32_t min = 0;
  if (b0 < 0x80) {
    rune = b0;
    return 1;
  }
  if ((b0 & 0xE0U) == 0xC0U) {
    n = 2, rune = b0 & 0x1FU, min = 0x80;
  } else if ((b0 & 0xF0U) == 0xE0U) {
    n = 3, rune = b0 & 0x0FU, min = 0x800;
  } else if ((b0 & 0xF8U) == 0xF0U) {
    n = 4, rune = b0 & 0x07U, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0U) != 0x80U) return 0;
    rune = (rune << 6U) | (b & 0x3FU);
  }
  if (rune < min || rune > 0x10FFFF || (rune >= 0xD800 && rune < 0xE000)) return 0;
  return n;
}

void go_json_string(std::string& out, std::string_view s) {
  static constexpr const char* kHex = "0123456789abcdef";
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t rune = 0;
    const std::size_t n = utf8_length(s, i, rune);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    i += n;
    switch (rune) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      case 0x2028: out += "\\u2028"; continue;
      case 0x2029: out += "\\u2029"; continue;
      default: break;
    }
    if (rune < 0x20 || rune == '<' || rune == '>' || rune == '&') {
      out += "\\u00";
      out += kHex[rune >> 4U];
      out += kHex[rune & 0xFU];
    } else {
      out.append(s.substr(i - n, n));
    }
  }
  out += '"';
}

void go_json_into(std::string& out, const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: out += "null"; return;
    case json::kind::bool_: out += v.get_bool() ? "true" : "false"; return;
    case json::kind::int64: out += std::to_string(v.get_int64()); return;
    case json::kind::uint64: out += std::to_string(v.get_uint64()); return;
    case json::kind::double_: out += go_float(v.get_double(), true); return;
    case json::kind::string: go_json_string(out, v.get_string()); return;
    case json::kind::array: {
      out += '[';
      bool first = true;
      for (const auto& item : v.get_array()) {
        if (!first) out += ',';
        first = false;
        go_json_into(out, item);
      }
      out += ']';
      return;
    }
    case json::kind::object: {
      out += '{';
      bool first = true;
      for (const auto* kv : sorted_entries(v.get_object())) {
        if (!first) out += ',';
        first = false;
        go_json_string(out, kv->key());
        out += ':';
        go_json_into(out, kv->value());
      }
      out += '}';
      return;
    }
  }
}

}  // namespace

std::string go_json(const json::value& value) {
  std::string out;
  go_json_into(out, value);
  return out;
}

std::string go_sprint(const json::value& value) {
  switch (value.kind()) {
    case json::kind::null: return "<nil>";
    case json::kind::bool_: return value.get_bool() ? "true" : "false";
    case json::kind::int64: return std::to_string(value.get_int64());
    case json::kind::uint64: return std::to_string(value.get_uint64());
    case json::kind::double_: return go_float(value.get_double(), false);
    case json::kind::string: return std::string(value.get_string());
    case json::kind::array: {
      std::string out = "[";
      bool first = true;
      for (const auto& item : value.get_array()) {
        if (!first) out += ' ';
        first = false;
        out += go_sprint(item);
      }
      return out + "]";
    }
    case json::kind::object: {
      std::string out = "map[";
      bool first = true;
      for (const auto* kv : sorted_entries(value.get_object())) {
        if (!first) out += ' ';
        first = false;
        out += std::string(kv->key()) + ":" + go_sprint(kv->value());
      }
      return out + "]";
    }
  }
  return {};
}

tl::expected<JsonPath, std::string> JsonPath::parse(std::string_view text) {
  Parser parser(text);
  auto root = parser.parse();
  if (!root) return tl::unexpected(root.error());
  return JsonPath(std::make_shared<const Node>(std::move(*root)));
}

tl::expected<JsonPath::Results, std::string> JsonPath::find(const json::value& data) const {
  Evaluator eval;
  Results out;
  if (auto ok = run(eval, root_->nodes, 0, &data, false, out); !ok) {
    return tl::unexpected(ok.error());
  }
  return out;
}

tl::expected<std::string, std::string> JsonPath::execute(const json::value& data) const {
  auto results = find(data);
  if (!results) return tl::unexpected(results.error());
  std::string out;
  for (const auto& part : *results) {
    for (std::size_t i = 0; i < part.size(); ++i) {
      const auto& v = part[i];
      out += v.is_object() || v.is_array() ? go_json(v) : go_sprint(v);
      if (i + 1 != part.size()) out += ' ';
    }
  }
  return out;
}

tl::expected<std::string, std::string> relaxed_jsonpath(std::string_view expression) {
  if (expression.empty()) return std::string();
  // ^\{\.?([^{}]+)\}$ or ^\.?([^{}]+)$
  std::string_view inner = expression;
  if (inner.size() >= 2 && inner.front() == '{' && inner.back() == '}') {
    inner = inner.substr(1, inner.size() - 2);
  }
  // The optional leading dot, unless it is all there is (`.` relaxes to `{..}`, as in kubectl).
  if (inner.size() > 1 && inner.front() == '.') inner.remove_prefix(1);
  if (inner.empty() || inner.find_first_of("{}") != std::string_view::npos) {
    return error(
        "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' "
        "or '{.name1.name2}'");
  }
  return "{." + std::string(inner) + "}";
}

}  // namespace trainerctl
