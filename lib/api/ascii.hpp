// SPDX-License-Identifier: Apache-2.0
//
// ASCII character classes, trimming and lower-casing. Kubernetes names, quantities, kinds, YAML
// scalars, HTTP headers and PEM text are classified by ASCII alone, whatever the process's C
// locale (which std::isdigit and std::tolower read), so every reader of them uses these.
#pragma once

#include <string>
#include <string_view>

namespace trainer::ascii {

constexpr bool is_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}
constexpr bool is_lower(char c) noexcept {
  return c >= 'a' && c <= 'z';
}
constexpr bool is_upper(char c) noexcept {
  return c >= 'A' && c <= 'Z';
}
constexpr bool is_alpha(char c) noexcept {
  return is_lower(c) || is_upper(c);
}
constexpr bool is_alnum(char c) noexcept {
  return is_alpha(c) || is_digit(c);
}
/// [a-z0-9], the characters of a DNS label.
constexpr bool is_lower_alnum(char c) noexcept {
  return is_lower(c) || is_digit(c);
}

/// `text` with A-Z turned into a-z, whatever the C locale (Kubernetes kinds, HTTP header names,
/// resource names compared without case).
inline std::string to_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (is_upper(c)) c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

/// What `trim` removes unless told otherwise: space, tab, CR and LF.
inline constexpr std::string_view kWhitespace = " \t\r\n";
/// HTTP's optional whitespace (RFC 9110, OWS): space and tab.
inline constexpr std::string_view kHttpWhitespace = " \t";

/// `text` without its leading and trailing characters of `chars`.
constexpr std::string_view trim(std::string_view text,
                                std::string_view chars = kWhitespace) noexcept {
  const auto first = text.find_first_not_of(chars);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(chars) - first + 1);
}

}  // namespace trainer::ascii
