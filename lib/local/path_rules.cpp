// SPDX-License-Identifier: Apache-2.0
#include "local/path_rules.hpp"

#include <boost/json/string_view.hpp>
#include <boost/json/value.hpp>

namespace trainer::local::detail {
namespace {

boost::json::value json_string(std::string_view s) {
  return boost::json::value(boost::json::string_view(s.data(), s.size()));
}

// path.IsAbs for slash-separated paths.
bool is_absolute(std::string_view value) {
  return !value.empty() && value.front() == '/';
}

// validatePathNoBacksteps: any `..` element (split on '/').
bool has_backstep(std::string_view value) {
  for (std::size_t start = 0;;) {
    const auto slash = value.find('/', start);
    if (value.substr(start, slash == std::string_view::npos ? slash : slash - start) == "..") {
      return true;
    }
    if (slash == std::string_view::npos) return false;
    start = slash + 1;
  }
}

}  // namespace

std::vector<FieldError> validate_path_no_backsteps(const std::string& path,
                                                   std::string_view value) {
  // Upstream stops at the first `..`: one error makes the point.
  if (!has_backstep(value)) return {};
  return {field_invalid(path, json_string(value), "must not contain '..'")};
}

std::vector<FieldError> validate_local_descending_path(const std::string& path,
                                                       std::string_view value) {
  std::vector<FieldError> errs;
  if (is_absolute(value)) {
    errs.push_back(field_invalid(path, json_string(value), "must be a relative path"));
  }
  for (auto& e : validate_path_no_backsteps(path, value)) errs.push_back(std::move(e));
  return errs;
}

std::vector<FieldError> validate_local_non_reserved_path(const std::string& path,
                                                         std::string_view value) {
  auto errs = validate_local_descending_path(path, value);
  // Not reported again when the `..` element check already caught it.
  if (value.substr(0, 2) == ".." && value.substr(0, 3) != "../") {
    errs.push_back(field_invalid(path, json_string(value), "must not start with '..'"));
  }
  return errs;
}

std::vector<FieldError> validate_file_mode(const std::string& path, std::int64_t mode) {
  if (mode >= 0 && mode <= 0777) return {};
  return {field_invalid(path, boost::json::value(mode),
                        "must be a number between 0 and 0777 (octal), both inclusive")};
}

std::vector<FieldError> validate_mount_path(const std::string& path, std::string_view value) {
  if (value.empty()) return {field_required(path, "")};
  if (!is_absolute(value)) {
    return {field_invalid(path, json_string(value), "must be an absolute path")};
  }
  return {};
}

}  // namespace trainer::local::detail
