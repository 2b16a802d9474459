// SPDX-License-Identifier: Apache-2.0
#include "serving/http_message.hpp"

#include <boost/beast/core/string.hpp>

namespace trainer::serving {

std::string_view Request::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (boost::beast::iequals(key, name)) return value;
  }
  return {};
}

std::string_view Request::param(std::string_view name) const {
  for (const auto& [key, value] : params) {
    if (key == name) return value;
  }
  return {};
}

}  // namespace trainer::serving
