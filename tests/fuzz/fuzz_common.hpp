// SPDX-License-Identifier: Apache-2.0
//
// Checks shared by the fuzz targets. A failed check prints what was expected and aborts, which
// libFuzzer reports as a crash with the input saved as a reproducer.
#pragma once

#include "api/text_position.hpp"
#include "trainer/codec.hpp"

#include <boost/json/value.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace trainer::fuzz {

[[noreturn]] inline void fail_check(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz check failed: %s\n%.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

/// Aborts unless `text` is valid UTF-8 (what every output and every error message must be).
inline void check_utf8(const char* what, std::string_view text) {
  if (const auto bad = detail::find_invalid_utf8(text)) {
    fail_check(what, "invalid UTF-8 at byte offset " + std::to_string(*bad) + " of:\n" +
                         std::string(text));
  }
}

/// Equality of two JSON values as YAML can carry them: an integral double below 1e21 reads back
/// as the integer of the same value (docs/yaml.md, "Scalar resolution"); everything else must be
/// equal, including the key order of objects.
inline bool same_value(const boost::json::value& a, const boost::json::value& b) {
  if (a.is_double() && !b.is_double()) {
    const double d = a.get_double();
    if (std::fabs(d) >= 1e21 || std::trunc(d) != d) return false;
    if (b.is_int64()) return static_cast<double>(b.get_int64()) == d;
    if (b.is_uint64()) return static_cast<double>(b.get_uint64()) == d;
    return false;
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case boost::json::kind::object: {
      const auto& x = a.get_object();
      const auto& y = b.get_object();
      if (x.size() != y.size()) return false;
      for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j) {
        if (i->key() != j->key() || !same_value(i->value(), j->value())) return false;
      }
      return true;
    }
    case boost::json::kind::array: {
      const auto& x = a.get_array();
      const auto& y = b.get_array();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!same_value(x[i], y[i])) return false;
      }
      return true;
    }
    default: return a == b;
  }
}

/// Aborts unless `text` (written by encode_json or encode_yaml from `value`) parses back to
/// exactly one document equal to `value`.
inline void check_round_trip(const char* what, const boost::json::value& value,
                             std::string_view text) {
  check_utf8(what, text);
  auto back = parse_documents(text);
  if (!back) {
    fail_check(
        what, "the output does not parse back: " + back.error().message + "\n" + std::string(text));
  }
  // A null value is written as `~`/`null`, which parse_documents skips as an empty document.
  const bool ok =
      value.is_null() ? back->empty() : back->size() == 1 && same_value(value, back->front());
  if (!ok) {
    fail_check(what, "the output parses back to another value:\n" + std::string(text) +
                         "\nreads back as:\n" + encode_yaml_stream(*back));
  }
}

}  // namespace trainer::fuzz
