// SPDX-License-Identifier: Apache-2.0
//
// trainer.hpp's converter section (include <trainer.hpp>, which includes this at its end):
// Training Operator v1 jobs and Katib Experiments to their Trainer v2 objects over the C ABI of
// trainer/convert.h (docs/convert.md). C++ code that links the core may call
// trainer::convert::convert_documents directly; this is the same conversion through the ABI.
#pragma once

#include "trainer.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::abi {

/// Options of convert() (trainer_convert_options); empty or false means the default.
struct ConvertOptions {
  std::string namespace_;         ///< namespace of a job that names none ["default"]
  bool strict = false;            ///< warnings are errors (kInvalid, one field error each)
  Format format = Format::kYaml;  ///< of ConvertResult::text(): a `---` stream or a `v1` List
  ParseOptions parse;             ///< parsing limits
};

/// What convert() produced (trainer_convert_result). Move-only owner; immutable, so it may be
/// read from any number of threads.
class ConvertResult {
 public:
  /// Takes ownership of a C handle (may be NULL: an empty result).
  explicit ConvertResult(trainer_convert_result* owned) noexcept : result_(owned) {}

  /// Every object as one text in the options' format.
  [[nodiscard]] std::string_view text() const noexcept {
    return detail::view(trainer_convert_result_text(result_.get()));
  }
  [[nodiscard]] std::size_t size() const noexcept {
    return trainer_convert_result_count(result_.get());
  }
  /// Object `i` as compact JSON (a view valid while the result lives); `i` must be below size().
  [[nodiscard]] std::string_view json(std::size_t i) const noexcept {
    return detail::view(trainer_convert_result_json(result_.get(), i));
  }
  /// Every object, parsed, in apply order.
  [[nodiscard]] std::vector<boost::json::value> objects() const {
    std::vector<boost::json::value> out;
    const std::size_t n = size();
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back(boost::json::parse(json(i)));
    return out;
  }
  /// One per v1 field that Trainer v2 cannot express, naming its path.
  [[nodiscard]] std::vector<std::string> warnings() const {
    std::vector<std::string> out;
    const std::size_t n = trainer_convert_result_warning_count(result_.get());
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      out.emplace_back(trainer_convert_result_warning(result_.get(), i));
    }
    return out;
  }

  /// The C handle (still owned by this object).
  [[nodiscard]] trainer_convert_result* raw() const noexcept { return result_.get(); }

 private:
  struct Deleter {
    void operator()(trainer_convert_result* r) const noexcept { trainer_convert_result_free(r); }
  };
  std::unique_ptr<trainer_convert_result, Deleter> result_;
};

/// Converts every Training Operator v1 job and Katib Experiment among the documents of `text`
/// (trainer_convert); other documents are kept as they are.
[[nodiscard]] inline Result<ConvertResult> convert(std::string_view text,
                                                   const ConvertOptions& options = {}) {
  const trainer_parse_options parse = detail::c_parse_options(options.parse);
  trainer_convert_options opts = TRAINER_CONVERT_OPTIONS_INIT;
  opts.namespace_name = detail::c_str(options.namespace_);
  opts.strict = options.strict ? 1 : 0;
  opts.format = static_cast<trainer_format>(options.format);
  opts.parse = &parse;
  trainer_convert_result* result = nullptr;
  trainer_error* err = nullptr;
  const trainer_status status = trainer_convert(text.data(), text.size(), &opts, &result, &err);
  if (status != TRAINER_OK) return detail::failure(status, err);
  return ConvertResult(result);
}

}  // namespace trainer::abi
