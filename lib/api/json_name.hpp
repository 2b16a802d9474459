// SPDX-License-Identifier: Apache-2.0
//
// The JSON name of a described member, made at compile time from its C++ name: snake_case
// becomes camelCase (`num_proc_per_node` -> `numProcPerNode`), and the trailing underscore that
// keeps a member clear of a C++ keyword is dropped (`template_`, `namespace_`). Every field of
// the model is named this way, so a description lists members only.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace trainer::detail {

constexpr std::size_t json_name_size(const char* member) {
  std::size_t n = 0;
  for (const char* p = member; *p != '\0'; ++p) {
    if (*p != '_') ++n;
  }
  return n;
}

/// `D` is a Boost.Describe member descriptor.
template <class D>
class JsonName {
  static constexpr std::size_t kSize = json_name_size(D::name);

  static constexpr std::array<char, kSize + 1> make() {
    std::array<char, kSize + 1> out{};
    std::size_t n = 0;
    bool upper = false;
    for (const char* p = D::name; *p != '\0'; ++p) {
      if (*p == '_') {
        upper = true;
        continue;
      }
      out[n++] = upper && *p >= 'a' && *p <= 'z' ? static_cast<char>(*p - 'a' + 'A') : *p;
      upper = false;
    }
    return out;
  }

  static constexpr std::array<char, kSize + 1> kText = make();

 public:
  static constexpr std::string_view value{kText.data(), kSize};
};

}  // namespace trainer::detail
