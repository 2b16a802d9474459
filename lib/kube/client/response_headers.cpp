// SPDX-License-Identifier: Apache-2.0
#include "kube/client/response_headers.hpp"

#include "api/ascii.hpp"

#include <algorithm>
#include <charconv>

namespace trainer::kube::detail {

namespace {

constexpr long kMaxRetryAfterSeconds = 24L * 3600;

void skip_spaces(std::string_view text, std::size_t& at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
}

// A quoted-string starting at `at` (on the opening quote); nullopt when unterminated.
std::optional<std::string> read_quoted(std::string_view text, std::size_t& at) {
  if (at >= text.size() || text[at] != '"') return std::nullopt;
  std::string out;
  for (++at; at < text.size(); ++at) {
    const char c = text[at];
    if (c == '\\' && at + 1 < text.size()) {
      out.push_back(text[++at]);
    } else if (c == '"') {
      ++at;
      return out;
    } else {
      out.push_back(c);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<long> parse_retry_after(std::string_view value) {
  value = ascii::trim(value, ascii::kHttpWhitespace);
  long seconds = 0;
  const auto* end = value.data() + value.size();
  const auto parsed = std::from_chars(value.data(), end, seconds);
  if (value.empty() || parsed.ec != std::errc() || parsed.ptr != end || seconds < 0) {
    return std::nullopt;
  }
  // Far beyond any max_retry_wait; keeps the conversion to milliseconds from overflowing.
  return std::min(seconds, kMaxRetryAfterSeconds);
}

std::vector<std::string> parse_warnings(std::string_view value) {
  std::vector<std::string> texts;
  std::size_t at = 0;
  while (true) {
    while (at < value.size() && (value[at] == ' ' || value[at] == '\t' || value[at] == ',')) ++at;
    if (at >= value.size()) break;
    // warn-code: three digits.
    if (at + 3 > value.size()) break;
    const std::string_view code = value.substr(at, 3);
    if (code.find_first_not_of("0123456789") != std::string_view::npos) break;
    at += 3;
    if (at >= value.size() || value[at] != ' ') break;
    skip_spaces(value, at);
    // warn-agent: a token (or host[:port]) up to the next space.
    const auto agent_end = value.find(' ', at);
    if (agent_end == std::string_view::npos) break;
    at = agent_end;
    skip_spaces(value, at);
    auto text = read_quoted(value, at);
    if (!text) break;
    skip_spaces(value, at);
    // Optional warn-date.
    if (at < value.size() && value[at] == '"' && !read_quoted(value, at)) break;
    if (code == "299") texts.push_back(std::move(*text));
    skip_spaces(value, at);
    if (at < value.size() && value[at] != ',') break;
  }
  return texts;
}

}  // namespace trainer::kube::detail
