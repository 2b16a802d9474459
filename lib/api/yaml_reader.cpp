// SPDX-License-Identifier: Apache-2.0
//
// YAML -> JSON through yaml-cpp's event parser. Building the JSON value from events (instead of
// loading a YAML::Node tree first) lets every limit be enforced while parsing: depth is checked
// when a collection opens, before yaml-cpp descends into it, and aliases are charged with the
// size of what they expand to (nodes, depth and bytes) before it is copied.
//
// yaml-cpp's own decoding is not trusted to produce what the JSON model can hold: it decodes the
// escapes `\_` and `\N` to single Latin-1 bytes (invalid UTF-8) and turns a raw NUL byte into
// other characters. Raw NUL bytes are refused before parsing, and every decoded scalar (keys
// included) is checked for valid UTF-8 and NUL, with the field path where it was found.
#include "api/readers.hpp"
#include "api/text_position.hpp"
#include "api/yaml_scalar.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <istream>
#include <new>
#include <streambuf>
#include <unordered_map>
#include <utility>

namespace trainer::detail {
namespace {

namespace json = boost::json;

constexpr const char* kTagPrefix = "tag:yaml.org,2002:";

// Thrown from inside the event handler to unwind yaml-cpp; never leaves read_yaml.
struct Stop {
  Error error;
};

std::string where(const YAML::Mark& mark) {
  if (mark.is_null()) return "";
  return "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1) +
         ": ";
}

// An input stream over text that stays where it is: yaml-cpp reads a std::istream, and a
// std::istringstream would hold two copies of the input (the string it is built from and its
// own buffer).
class TextBuffer final : public std::streambuf {
 public:
  explicit TextBuffer(std::string_view text) {
    // The get area is only read; std::streambuf's interface takes mutable pointers.
    char* begin = const_cast<char*>(text.data());
    setg(begin, begin, begin + text.size());
  }
};

[[noreturn]] void stop(ErrorCode code, const YAML::Mark& mark, const std::string& message) {
  throw Stop{Error(code, "yaml: " + where(mark) + message)};
}

// `<path>: ` for messages about the node at `path`; nothing at the document root.
std::string at_path(const std::string& path) {
  return path.empty() ? std::string() : path + ": ";
}

class JsonBuilder final : public YAML::EventHandler {
 public:
  explicit JsonBuilder(const DecodeOptions& options) : options_(options) {}

  std::vector<json::value> take_documents() { return std::move(documents_); }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++document_count_ > options_.max_documents) {
      stop(ErrorCode::kLimit, mark,
           "more than max_documents (" + std::to_string(options_.max_documents) + ") documents");
    }
    stack_.clear();
    anchors_.clear();
    root_.reset();
  }

  void OnDocumentEnd() override {
    if (root_ && !root_->is_null()) documents_.push_back(std::move(*root_));
    root_.reset();
  }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    count_node(mark);
    complete(json::value(nullptr), mark, anchor, 1, 0, 0);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (++alias_count_ > options_.max_aliases) {
      stop(ErrorCode::kLimit, mark,
           "more than max_aliases (" + std::to_string(options_.max_aliases) + ") aliases");
    }
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      // yaml-cpp registers an anchor when its node starts: an alias inside it is recursive.
      stop(ErrorCode::kParse, mark, "an alias refers to the node that contains it");
    }
    const Anchored& a = it->second;
    if (a.nodes > options_.max_nodes - nodes_) nodes_limit(mark);
    nodes_ += a.nodes;
    check_depth(mark, a.height);
    charge_copy(mark, a.bytes);
    string_bytes_ += a.bytes;
    complete(json::value(a.value), mark, 0, a.nodes, a.height, a.bytes);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& text) override {
    count_node(mark);
    const bool is_key = expecting_key();
    if (is_key && tag == "?" && text == "<<") {
      stop(ErrorCode::kParse, mark, "merge keys (<<) are not supported");
    }
    check_decoded(mark, text, is_key);
    string_bytes_ += text.size();
    complete(scalar_value(mark, tag, text), mark, anchor, 1, 0, text.size());
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    open(mark, tag, anchor, json::value(json::array()), "seq");
  }

  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    open(mark, tag, anchor, json::value(json::object()), "map");
  }

  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    json::value value;  // array or object
    YAML::anchor_t anchor = 0;
    std::size_t nodes_at_start = 0;
    std::size_t bytes_at_start = 0;
    std::size_t height = 0;  // of the deepest child
    bool have_key = false;
    std::string key;
    YAML::Mark mark;
  };

  struct Anchored {
    json::value value;
    std::size_t nodes = 0;
    std::size_t height = 0;
    std::size_t bytes = 0;  // scalar text (keys and values) in `value`
  };

  [[nodiscard]] bool expecting_key() const {
    return !stack_.empty() && stack_.back().value.is_object() && !stack_.back().have_key;
  }

  [[noreturn]] void nodes_limit(const YAML::Mark& mark) const {
    stop(ErrorCode::kLimit, mark,
         "more than max_nodes (" + std::to_string(options_.max_nodes) +
             ") nodes after alias expansion");
  }

  void count_node(const YAML::Mark& mark) {
    if (nodes_ >= options_.max_nodes) nodes_limit(mark);
    ++nodes_;
  }

  // The field path of the node being decoded: `spec.containers[0].name`. For a map key, the path
  // of its map.
  [[nodiscard]] std::string path_here() const {
    std::string p;
    for (const Frame& f : stack_) {
      if (f.value.is_array()) {
        p += '[';
        p += std::to_string(f.value.get_array().size());
        p += ']';
      } else if (f.have_key) {
        if (!p.empty()) p += '.';
        p += f.key;
      }
    }
    return p;
  }

  // A decoded scalar must be text the JSON model and every consumer can hold.
  void check_decoded(const YAML::Mark& mark, const std::string& text, bool is_key) const {
    const char* what = is_key ? "a map key" : "the scalar";
    if (const auto bad = find_invalid_utf8(text)) {
      stop(ErrorCode::kParse, mark,
           at_path(path_here()) + what + " decodes to invalid UTF-8 at byte " +
               std::to_string(*bad) +
               " (yaml-cpp decodes the escapes \\_ and \\N to single bytes; write \\u00a0 "
               "and \\u0085 instead)");
    }
    if (text.find('\0') != std::string::npos) {
      stop(ErrorCode::kParse, mark,
           at_path(path_here()) + what + " contains a NUL character, which is not allowed");
    }
  }

  // Anchors and aliases copy nodes: each definition once, each alias once more.
  void charge_copy(const YAML::Mark& mark, std::size_t bytes) {
    if (bytes > options_.max_alias_bytes - copied_bytes_) {
      stop(ErrorCode::kLimit, mark,
           at_path(path_here()) + "anchors and aliases copy more than max_alias_bytes (" +
               std::to_string(options_.max_alias_bytes) + ") bytes of scalar text");
    }
    copied_bytes_ += bytes;
  }

  // `height` more levels are about to be added under the current stack.
  void check_depth(const YAML::Mark& mark, std::size_t height) const {
    if (stack_.size() + height > options_.max_depth) {
      stop(ErrorCode::kLimit, mark,
           "nesting deeper than max_depth (" + std::to_string(options_.max_depth) + ")");
    }
  }

  json::value scalar_value(const YAML::Mark& mark, const std::string& tag,
                           const std::string& text) const {
    // "!" marks a quoted or block scalar; those are always strings.
    if (tag == "!" || tag == std::string(kTagPrefix) + "str")
      return json::value(json::string(text));
    if (tag != "?" && tag.rfind(kTagPrefix, 0) != 0)
      stop(ErrorCode::kParse, mark, "unsupported tag " + tag);
    ResolvedScalar r = resolve_plain_scalar(text);
    if (auto* message = std::get_if<std::string>(&r)) stop(ErrorCode::kParse, mark, *message);
    json::value v = std::move(std::get<json::value>(r));
    if (tag == "?") return v;
    const std::string_view name = std::string_view(tag).substr(std::string_view(kTagPrefix).size());
    const bool matches = (name == "null" && v.is_null()) || (name == "bool" && v.is_bool()) ||
                         (name == "int" && (v.is_int64() || v.is_uint64())) ||
                         (name == "float" && v.is_number());
    if (!matches)
      stop(ErrorCode::kParse, mark, "cannot decode " + text + " as !!" + std::string(name));
    return v;
  }

  void open(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
            json::value empty, const char* what) {
    count_node(mark);
    if (expecting_key()) stop(ErrorCode::kParse, mark, "map keys must be strings");
    if (tag != "?" && tag != "!" && tag != std::string(kTagPrefix) + what) {
      stop(ErrorCode::kParse, mark, "unsupported tag " + tag);
    }
    check_depth(mark, 1);
    Frame f;
    f.value = std::move(empty);
    f.anchor = anchor;
    f.nodes_at_start = nodes_;
    f.bytes_at_start = string_bytes_;
    f.mark = mark;
    stack_.push_back(std::move(f));
  }

  void close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    complete(std::move(f.value), f.mark, f.anchor, nodes_ - f.nodes_at_start + 1, f.height + 1,
             string_bytes_ - f.bytes_at_start);
  }

  // Map keys follow sigs.k8s.io/yaml: strings as they are, ints and bools in their JSON text.
  std::string key_text(const json::value& v, const YAML::Mark& mark) const {
    switch (v.kind()) {
      case json::kind::string: return std::string(v.get_string());
      case json::kind::int64: return std::to_string(v.get_int64());
      case json::kind::bool_: return v.get_bool() ? "true" : "false";
      default: stop(ErrorCode::kParse, mark, "map keys must be strings");
    }
  }

  // `bytes`: scalar text in `v` (keys and values, alias expansions included).
  void complete(json::value v, const YAML::Mark& mark, YAML::anchor_t anchor, std::size_t nodes,
                std::size_t height, std::size_t bytes) {
    if (anchor != 0) {
      if (nodes > options_.max_nodes - anchored_nodes_) {
        stop(ErrorCode::kLimit, mark,
             "anchored nodes exceed max_nodes (" + std::to_string(options_.max_nodes) + ")");
      }
      anchored_nodes_ += nodes;
      charge_copy(mark, bytes);
      anchors_[anchor] = Anchored{v, nodes, height, bytes};
    }
    if (stack_.empty()) {
      root_ = std::move(v);
      return;
    }
    Frame& parent = stack_.back();
    if (height > parent.height) parent.height = height;
    if (parent.value.is_array()) {
      parent.value.get_array().push_back(std::move(v));
      return;
    }
    json::object& obj = parent.value.get_object();
    if (!parent.have_key) {
      parent.key = key_text(v, mark);
      if (obj.contains(parent.key)) {
        stop(ErrorCode::kParse, mark, "duplicate key \"" + parent.key + "\" in map");
      }
      parent.have_key = true;
      return;
    }
    obj.emplace(parent.key, std::move(v));
    parent.have_key = false;
  }

  const DecodeOptions& options_;
  std::vector<Frame> stack_;
  std::unordered_map<YAML::anchor_t, Anchored> anchors_;
  std::optional<json::value> root_;
  std::vector<json::value> documents_;
  std::size_t document_count_ = 0;
  std::size_t nodes_ = 0;
  std::size_t anchored_nodes_ = 0;
  std::size_t alias_count_ = 0;
  std::size_t string_bytes_ = 0;  // scalar text produced so far, alias expansions included
  std::size_t copied_bytes_ = 0;  // scalar text copied by anchors and aliases
};

}  // namespace

Result<std::vector<json::value>> read_yaml(std::string_view text, const DecodeOptions& options) {
  // yaml-cpp turns a NUL byte into other characters instead of refusing it (YAML does not allow
  // it in a stream; go-yaml refuses it as a control character).
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    return fail(ErrorCode::kParse, "yaml: NUL character at " + describe_position(text, nul) +
                                       " (byte offset " + std::to_string(nul) + ")");
  }
  try {
    TextBuffer buffer(text);
    std::istream in(&buffer);
    YAML::Parser parser(in);
    JsonBuilder builder(options);
    while (parser.HandleNextDocument(builder)) {
    }
    return builder.take_documents();
  } catch (const Stop& s) {
    return tl::unexpected<Error>(s.error);
  } catch (const YAML::Exception& e) {
    // yaml-cpp quotes single bytes of the input (`unknown escape character: \xc3` for `"\é"`).
    return fail(ErrorCode::kParse, "yaml: " + where(e.mark) + escape_invalid_utf8(e.msg));
  } catch (const std::bad_alloc&) {
    return fail(ErrorCode::kNoMemory, "yaml: out of memory");
  } catch (const std::exception& e) {
    return fail(ErrorCode::kParse, "yaml: " + escape_invalid_utf8(e.what()));
  }
}

}  // namespace trainer::detail
