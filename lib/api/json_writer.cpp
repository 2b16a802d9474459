// SPDX-License-Identifier: Apache-2.0
//
// encode_json: deterministic JSON text. Numbers are written in their shortest exact form
// (boost::json::serialize would write `1.5E0`).
#include "api/number_text.hpp"
#include "trainer/codec.hpp"

#include <boost/json/serialize.hpp>

namespace trainer {
namespace detail {

namespace {

namespace json = boost::json;

void write(std::string& out, const json::value& v, bool pretty, std::size_t indent) {
  const auto newline = [&](std::size_t level) {
    if (!pretty) return;
    out += '\n';
    out.append(level * 2, ' ');
  };
  switch (v.kind()) {
    case json::kind::object: {
      const json::object& o = v.get_object();
      if (o.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      bool first = true;
      for (const auto& kv : o) {
        if (!first) out += ',';
        first = false;
        newline(indent + 1);
        out += json::serialize(json::string_view(kv.key()));
        out += pretty ? ": " : ":";
        write(out, kv.value(), pretty, indent + 1);
      }
      newline(indent);
      out += '}';
      return;
    }
    case json::kind::array: {
      const json::array& a = v.get_array();
      if (a.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      bool first = true;
      for (const auto& item : a) {
        if (!first) out += ',';
        first = false;
        newline(indent + 1);
        write(out, item, pretty, indent + 1);
      }
      newline(indent);
      out += ']';
      return;
    }
    case json::kind::double_: out += double_text(v.get_double()); return;
    default: out += json::serialize(v); return;
  }
}

}  // namespace
}  // namespace detail

std::string encode_json(const boost::json::value& value, bool pretty) {
  std::string out;
  detail::write(out, value, pretty, 0);
  return out;
}

}  // namespace trainer
