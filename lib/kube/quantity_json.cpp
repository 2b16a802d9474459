// SPDX-License-Identifier: Apache-2.0
#include "kube/quantity_json.hpp"

#include <boost/json/serialize.hpp>

#include <string>

namespace trainer::detail {

Result<Quantity> quantity_from_json(const boost::json::value& v, std::string_view name) {
  std::string text;
  if (v.is_string()) {
    text = std::string(v.get_string());
  } else if (v.is_number()) {
    text = boost::json::serialize(v);
  } else {
    return fail(ErrorCode::kInvalid,
                "resource " + std::string(name) + ": quantity must be a string or a number");
  }
  auto q = Quantity::parse(text);
  if (!q) {
    // A malformed quantity inside a well-formed document is an invalid value, not a parse error.
    return fail(ErrorCode::kInvalid,
                "resource " + std::string(name) + ": " + text + ": " + q.error().message);
  }
  return *q;
}

}  // namespace trainer::detail
