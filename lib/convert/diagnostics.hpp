// SPDX-License-Identifier: Apache-2.0
//
// The warnings and refusals of one conversion. Every warning names the v1 field path it is
// about (`PyTorchJob default/mnist: spec.runPolicy.cleanPodPolicy: "All" has no ...`); under
// Options::strict each becomes an `Invalid value` field error at that path.
#pragma once

#include "trainer/convert.hpp"
#include "trainer/error.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace trainer::convert::detail {

class Diagnostics {
 public:
  /// `prefix`: `<Kind> <namespace>/<name>`.
  explicit Diagnostics(std::string prefix) : prefix_(std::move(prefix)) {}

  /// A field v2 cannot express: `<prefix>: <path>: <value as JSON> <detail>`.
  void warn(const std::string& path, const boost::json::value& value, const std::string& detail);
  /// What the v1 webhook refuses, or what cannot be converted at all.
  void refuse(FieldError error) { errors_.push_back(std::move(error)); }

  [[nodiscard]] bool failed() const noexcept { return !errors_.empty(); }

  /// The conversion, or `kInvalid` with the refusals (and, when `strict`, every warning).
  [[nodiscard]] Result<Conversion> finish(std::vector<boost::json::value> objects, bool strict) &&;

 private:
  std::string prefix_;
  std::vector<std::string> warnings_;
  std::vector<FieldError> as_errors_;
  std::vector<FieldError> errors_;
};

}  // namespace trainer::convert::detail
