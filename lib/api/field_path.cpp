// SPDX-License-Identifier: Apache-2.0
#include "api/field_path.hpp"

namespace trainer::detail {

std::string FieldPath::str() const {
  std::string out;
  append_to(out);
  return out;
}

void FieldPath::append_to(std::string& out) const {
  if (parent_ != nullptr) parent_->append_to(out);
  switch (step_) {
    case Step::kRoot: out += text_; break;
    case Step::kField:
      if (!out.empty()) out += '.';
      out += text_;
      break;
    case Step::kIndex:
      out += '[';
      out += std::to_string(index_);
      out += ']';
      break;
    case Step::kMapKey:
      out += '[';
      out += text_;
      out += ']';
      break;
  }
}

}  // namespace trainer::detail
