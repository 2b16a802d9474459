// SPDX-License-Identifier: Apache-2.0
#include "kube/client/json_body.hpp"

#include <boost/json/parse.hpp>

#include <string>

namespace trainer::kube::detail {

boost::json::parse_options api_parse_options() noexcept {
  boost::json::parse_options options;
  options.max_depth = 512;
  return options;
}

Result<boost::json::object> parse_object(std::string_view body, std::string_view what) {
  boost::system::error_code ec;
  auto value = boost::json::parse(body, ec, {}, api_parse_options());
  if (ec) return fail(ErrorCode::kParse, std::string(what) + " is not JSON: " + ec.message());
  if (!value.is_object())
    return fail(ErrorCode::kParse, std::string(what) + " is not a JSON object");
  return std::move(value.get_object());
}

}  // namespace trainer::kube::detail
