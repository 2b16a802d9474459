// SPDX-License-Identifier: Apache-2.0
//
// JSON text -> value through boost::json::basic_parser with our own handler, because
// boost::json::parse silently keeps one of two duplicate keys and Kubernetes' strict decoder
// refuses them. The handler builds the value on a boost::json::value_stack, as boost::json::parse
// does (each object and array allocated once, at its size), and keeps the keys of the objects
// being read to find a duplicate where it occurs.
#include "api/number_text.hpp"
#include "api/readers.hpp"
#include "api/text_position.hpp"

#include <boost/json/array.hpp>
#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/value_stack.hpp>

#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace trainer::detail {
namespace {

namespace json = boost::json;

// `Exact`: keeps the keys of the open objects (duplicates found where they occur) and the field
// path of the value being read, for the error messages.
template <bool Exact>
class Handler {
 public:
  static constexpr std::size_t max_object_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_array_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_key_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_string_size = std::numeric_limits<std::size_t>::max();

  // The value stack starts in a buffer of the handler, as boost::json::parse's does, so that a
  // small document is built without growing it on the heap.
  explicit Handler(const DecodeOptions& options)
      : options_(options), stack_(json::storage_ptr(), stack_buffer_, sizeof stack_buffer_) {
    stack_.reset();
  }

  std::optional<Error> failure;
  std::optional<json::value> root;

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) {
    root = stack_.release();
    return true;
  }
  bool on_object_begin(json::error_code& ec) {
    if (!count(ec)) return false;
    if constexpr (Exact) {
      objects_.push_back(ObjectKeys{key_ends_.size(), nullptr});
      containers_.push_back(Container{false, 0});
    }
    return true;
  }
  bool on_object_end(std::size_t n, json::error_code&) {
    stack_.push_object(n);
    members_ += n;
    if constexpr (Exact) {
      key_ends_.resize(objects_.back().first_key);
      keys_.resize(key_ends_.empty() ? 0 : key_ends_.back());
      objects_.pop_back();
      containers_.pop_back();
    }
    value_done();
    return true;
  }
  bool on_array_begin(json::error_code& ec) {
    if (!count(ec)) return false;
    if constexpr (Exact) containers_.push_back(Container{true, 0});
    return true;
  }
  bool on_array_end(std::size_t n, json::error_code&) {
    stack_.push_array(n);
    if constexpr (Exact) containers_.pop_back();
    value_done();
    return true;
  }

  bool on_key_part(json::string_view s, std::size_t, json::error_code& ec) {
    if constexpr (Exact) {
      key_.append(s.data(), s.size());
    } else {
      if (has_nul(s)) return refuse_nul("an object key", ec);
      stack_.push_chars(s);
    }
    return true;
  }

  bool on_key(json::string_view s, std::size_t, json::error_code& ec) {
    if constexpr (Exact) {
      key_.append(s.data(), s.size());
      if (has_nul(key_)) return refuse_nul("an object key", ec);
      if (seen(key_))
        return refuse(ErrorCode::kParse, "duplicate key \"" + key_ + "\" in object", ec);
      stack_.push_key(key_);
      key_.clear();
    } else {
      if (has_nul(s)) return refuse_nul("an object key", ec);
      stack_.push_key(s);
    }
    return true;
  }

  /// The members read into objects (duplicates included).
  [[nodiscard]] std::size_t members() const noexcept { return members_; }

  bool on_string_part(json::string_view s, std::size_t, json::error_code& ec) {
    if (has_nul(s)) return refuse_nul("the string", ec);
    stack_.push_chars(s);
    return true;
  }

  bool on_string(json::string_view s, std::size_t, json::error_code& ec) {
    if (has_nul(s)) return refuse_nul("the string", ec);
    if (!count(ec)) return false;
    stack_.push_string(s);
    value_done();
    return true;
  }

  bool on_number_part(json::string_view s, json::error_code&) {
    number_.append(s.data(), s.size());
    return true;
  }
  bool on_int64(std::int64_t i, json::string_view, json::error_code& ec) {
    number_.clear();
    if (!count(ec)) return false;
    stack_.push_int64(i);
    value_done();
    return true;
  }
  bool on_uint64(std::uint64_t u, json::string_view, json::error_code& ec) {
    number_.clear();
    if (!count(ec)) return false;
    stack_.push_uint64(u);
    value_done();
    return true;
  }
  bool on_double(double, json::string_view s, json::error_code& ec) {
    number_.append(s.data(), s.size());
    // Read again as Go's decoder reads it: Boost.JSON's value can be one ulp off for long
    // mantissas, and it reads a number beyond the double range (1e400) as infinity, which no
    // JSON text can hold (encode_json would write it as null); Go refuses that number.
    const auto d = parse_float(number_);
    if (!d) {
      return refuse(ErrorCode::kParse, "number " + number_ + " is out of the range of a float64",
                    ec);
    }
    number_.clear();
    if (!count(ec)) return false;
    stack_.push_double(*d);
    value_done();
    return true;
  }
  bool on_bool(bool b, json::error_code& ec) {
    if (!count(ec)) return false;
    stack_.push_bool(b);
    value_done();
    return true;
  }
  bool on_null(json::error_code& ec) {
    if (!count(ec)) return false;
    stack_.push_null();
    value_done();
    return true;
  }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

 private:
  // Objects with more keys than this look keys up in a hash set instead of comparing them all.
  static constexpr std::size_t kLinearKeys = 32;

  // The keys read so far of one open object: `key_ends_[first_key..]`, and a set of them once
  // there are many.
  struct ObjectKeys {
    std::size_t first_key;
    std::unique_ptr<std::unordered_set<std::string>> many;
  };

  // Whether the innermost open object already has `key`; records it when not.
  bool seen(const std::string& key) {
    ObjectKeys& obj = objects_.back();
    const std::size_t n = key_ends_.size() - obj.first_key;
    if (obj.many) {
      if (!obj.many->insert(key).second) return true;
    } else {
      std::size_t begin = obj.first_key == 0 ? 0 : key_ends_[obj.first_key - 1];
      for (std::size_t i = obj.first_key; i < key_ends_.size(); ++i) {
        if (std::string_view(keys_).substr(begin, key_ends_[i] - begin) == key) return true;
        begin = key_ends_[i];
      }
      if (n + 1 > kLinearKeys) {
        obj.many = std::make_unique<std::unordered_set<std::string>>();
        begin = obj.first_key == 0 ? 0 : key_ends_[obj.first_key - 1];
        for (std::size_t i = obj.first_key; i < key_ends_.size(); ++i) {
          obj.many->emplace(keys_, begin, key_ends_[i] - begin);
          begin = key_ends_[i];
        }
        obj.many->insert(key);
      }
    }
    keys_ += key;
    key_ends_.push_back(keys_.size());
    return false;
  }

  // An open object or array, for the field path of an error: how many values it holds so far.
  struct Container {
    bool array;
    std::size_t values;
  };

  void value_done() {
    if constexpr (Exact) {
      if (!containers_.empty()) ++containers_.back().values;
    }
  }

  static bool has_nul(std::string_view s) { return s.find('\0') != std::string_view::npos; }

  // The field path of the value being read, as the YAML reader writes it
  // (`spec.containers[0].name`): the index in each open array, the last key read in each open
  // object (for a key being read: the path of its object).
  [[nodiscard]] std::string path_here() const {
    std::string p;
    std::size_t object = 0;
    for (const Container& c : containers_) {
      if (c.array) {
        p += '[';
        p += std::to_string(c.values);
        p += ']';
        continue;
      }
      // The keys of this object end before the first key of the next open object.
      const std::size_t end =
          object + 1 < objects_.size() ? objects_[object + 1].first_key : key_ends_.size();
      const std::size_t first = objects_[object].first_key;
      ++object;
      if (c.values == end - first) continue;  // between members (or reading a key)
      const std::size_t begin = end - 1 == 0 ? 0 : key_ends_[end - 2];
      if (!p.empty()) p += '.';
      p.append(keys_, begin, key_ends_[end - 1] - begin);
    }
    return p;
  }

  // Decoded text must not hold NUL, as in YAML (docs/yaml.md): no Kubernetes field can use it
  // and C consumers of the C ABI would see a truncated string.
  bool refuse_nul(const char* what, json::error_code& ec) {
    if constexpr (!Exact) return refuse(ErrorCode::kParse, {}, ec);  // read again: Exact
    const std::string path = path_here();
    return refuse(ErrorCode::kParse,
                  (path.empty() ? std::string() : path + ": ") + what +
                      " contains a NUL character, which is not allowed",
                  ec);
  }

  bool refuse(ErrorCode code, std::string message, json::error_code& ec) {
    failure = Error(code, std::move(message));
    ec = json::error::exception;
    return false;
  }

  bool count(json::error_code& ec) {
    if (nodes_ >= options_.max_nodes) {
      return refuse(ErrorCode::kLimit,
                    "more than max_nodes (" + std::to_string(options_.max_nodes) + ") nodes", ec);
    }
    ++nodes_;
    return true;
  }

  const DecodeOptions& options_;
  unsigned char stack_buffer_[BOOST_JSON_STACK_BUFFER_SIZE];
  json::value_stack stack_;
  std::string key_;                    ///< the key being read (parts)
  std::string number_;                 ///< the text of the number being read (parts)
  std::string keys_;                   ///< keys of the open objects, back to back
  std::vector<std::size_t> key_ends_;  ///< end of each key in keys_
  std::vector<ObjectKeys> objects_;    ///< the open objects, innermost last
  std::vector<Container> containers_;  ///< the open objects and arrays, innermost last
  std::size_t nodes_ = 0;
  std::size_t members_ = 0;
};

// The members of the objects of `v`, nested ones included.
std::size_t count_members(const json::value& v) {
  std::size_t n = 0;
  if (const auto* obj = v.if_object()) {
    n = obj->size();
    for (const auto& kv : *obj) n += count_members(kv.value());
  } else if (const auto* array = v.if_array()) {
    for (const auto& item : *array) n += count_members(item);
  }
  return n;
}

// One pass of Handler<Exact> over `text`.
template <bool Exact>
Result<json::value> read_json_pass(std::string_view text, const DecodeOptions& options) {
  json::parse_options parse_options;
  parse_options.max_depth = options.max_depth;
  try {
    json::basic_parser<Handler<Exact>> parser(parse_options, options);
    json::error_code ec;
    const std::size_t n = parser.write_some(false, text.data(), text.size(), ec);
    // The line and column of the stop, only when there is an error to place: counting lines
    // costs a pass over the text.
    const auto at = [&] { return describe_position(text, n); };
    if (parser.handler().failure) {
      Error e = *parser.handler().failure;
      e.message = "json: " + at() + ": " + e.message;
      return tl::unexpected<Error>(std::move(e));
    }
    if (ec == json::error::too_deep) {
      return fail(ErrorCode::kLimit, "json: " + at() + ": nesting deeper than max_depth (" +
                                         std::to_string(options.max_depth) + ")");
    }
    if (ec) return fail(ErrorCode::kParse, "json: " + at() + ": " + ec.message());
    if (!parser.handler().root) return fail(ErrorCode::kParse, "json: unexpected end of input");
    if constexpr (!Exact) {
      // A duplicate key left one member fewer in its object than were read.
      if (count_members(*parser.handler().root) != parser.handler().members()) {
        return fail(ErrorCode::kParse, "json: duplicate key");  // read again: Exact
      }
    }
    // write_some stops after one complete value; anything but whitespace after it is an error.
    const auto rest = text.find_first_not_of(" \t\r\n", n);
    if (rest != std::string_view::npos) {
      return fail(ErrorCode::kParse, "json: " + describe_position(text, rest) +
                                         ": unexpected data after the JSON value");
    }
    return std::move(*parser.handler().root);
  } catch (const std::bad_alloc&) {
    return fail(ErrorCode::kNoMemory, "json: out of memory");
  }
}

}  // namespace

Result<json::value> read_json(std::string_view text, const DecodeOptions& options) {
  auto value = read_json_pass<false>(text, options);
  if (value) return value;
  return read_json_pass<true>(text, options);
}

}  // namespace trainer::detail
