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
  return object_of(std::move(value), what);
}

Result<boost::json::object> object_of(boost::json::value&& value, std::string_view what) {
  if (!value.is_object())
    return fail(ErrorCode::kParse, std::string(what) + " is not a JSON object");
  return std::move(value.get_object());
}

std::string size_text(std::size_t bytes) {
  constexpr std::size_t kMiB = std::size_t{1} << 20U;
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace trainer::kube::detail
