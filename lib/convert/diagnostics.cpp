// SPDX-License-Identifier: Apache-2.0
#include "convert/diagnostics.hpp"

#include "api/value_text.hpp"

namespace trainer::convert::detail {

void Diagnostics::warn(const std::string& path, const boost::json::value& value,
                       const std::string& detail) {
  warnings_.push_back(prefix_ + ": " + path + ": " + trainer::detail::value_text(value) + " " +
                      detail);
  as_errors_.push_back(field_invalid(path, value, detail));
}

Result<Conversion> Diagnostics::finish(std::vector<boost::json::value> objects, bool strict) && {
  std::vector<FieldError> errors = std::move(errors_);
  if (strict) errors.insert(errors.end(), as_errors_.begin(), as_errors_.end());
  if (!errors.empty()) {
    Error e = Error::invalid(std::move(errors));
    e.message = prefix_ + ": " + e.message;
    return tl::unexpected<Error>(std::move(e));
  }
  return Conversion{std::move(objects), std::move(warnings_)};
}

}  // namespace trainer::convert::detail
