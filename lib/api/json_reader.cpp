// SPDX-License-Identifier: Apache-2.0
//
// JSON text -> value through boost::json::basic_parser with our own handler, because
// boost::json::parse silently keeps one of two duplicate keys and Kubernetes' strict decoder
// refuses them.
#include "api/readers.hpp"
#include "api/text_position.hpp"

#include <boost/json/array.hpp>
#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse_options.hpp>

#include <limits>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trainer::detail {
namespace {

namespace json = boost::json;

class Handler {
 public:
  static constexpr std::size_t max_object_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_array_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_key_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_string_size = std::numeric_limits<std::size_t>::max();

  explicit Handler(const DecodeOptions& options) : options_(options) {}

  std::optional<Error> failure;
  std::optional<json::value> root;

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_object_begin(json::error_code& ec) { return open(json::value(json::object()), ec); }
  bool on_object_end(std::size_t, json::error_code& ec) { return close(ec); }
  bool on_array_begin(json::error_code& ec) { return open(json::value(json::array()), ec); }
  bool on_array_end(std::size_t, json::error_code& ec) { return close(ec); }

  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    key_.append(s.data(), s.size());
    return true;
  }

  bool on_key(json::string_view s, std::size_t, json::error_code& ec) {
    key_.append(s.data(), s.size());
    Frame& f = stack_.back();
    if (f.value.get_object().contains(key_)) {
      return refuse(ErrorCode::kParse, "duplicate key \"" + key_ + "\" in object", ec);
    }
    f.key = std::move(key_);
    key_.clear();
    return true;
  }

  bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
    string_.append(s.data(), s.size());
    return true;
  }

  bool on_string(json::string_view s, std::size_t, json::error_code& ec) {
    string_.append(s.data(), s.size());
    json::value v = json::string(string_);
    string_.clear();
    return add(std::move(v), ec);
  }

  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(std::int64_t i, json::string_view, json::error_code& ec) {
    return add(json::value(i), ec);
  }
  bool on_uint64(std::uint64_t u, json::string_view, json::error_code& ec) {
    return add(json::value(u), ec);
  }
  bool on_double(double d, json::string_view, json::error_code& ec) {
    return add(json::value(d), ec);
  }
  bool on_bool(bool b, json::error_code& ec) { return add(json::value(b), ec); }
  bool on_null(json::error_code& ec) { return add(json::value(nullptr), ec); }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

 private:
  struct Frame {
    json::value value;
    std::string key;
  };

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

  bool open(json::value empty, json::error_code& ec) {
    if (!count(ec)) return false;
    stack_.push_back(Frame{std::move(empty), {}});
    return true;
  }

  bool close(json::error_code& ec) {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    return place(std::move(f.value), ec);
  }

  bool add(json::value v, json::error_code& ec) {
    if (!count(ec)) return false;
    return place(std::move(v), ec);
  }

  bool place(json::value v, json::error_code&) {
    if (stack_.empty()) {
      root = std::move(v);
    } else if (stack_.back().value.is_array()) {
      stack_.back().value.get_array().push_back(std::move(v));
    } else {
      Frame& f = stack_.back();
      f.value.get_object().emplace(f.key, std::move(v));
    }
    return true;
  }

  const DecodeOptions& options_;
  std::vector<Frame> stack_;
  std::string key_;
  std::string string_;
  std::size_t nodes_ = 0;
};

}  // namespace

Result<json::value> read_json(std::string_view text, const DecodeOptions& options) {
  json::parse_options parse_options;
  parse_options.max_depth = options.max_depth;
  try {
    json::basic_parser<Handler> parser(parse_options, options);
    json::error_code ec;
    const std::size_t n = parser.write_some(false, text.data(), text.size(), ec);
    const std::string at = describe_position(text, n);
    if (parser.handler().failure) {
      Error e = *parser.handler().failure;
      e.message = "json: " + at + ": " + e.message;
      return tl::unexpected<Error>(std::move(e));
    }
    if (ec == json::error::too_deep) {
      return fail(ErrorCode::kLimit, "json: " + at + ": nesting deeper than max_depth (" +
                                         std::to_string(options.max_depth) + ")");
    }
    if (ec) return fail(ErrorCode::kParse, "json: " + at + ": " + ec.message());
    if (!parser.handler().root) return fail(ErrorCode::kParse, "json: unexpected end of input");
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

}  // namespace trainer::detail
