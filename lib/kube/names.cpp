// SPDX-License-Identifier: Apache-2.0
//
// The regular expressions of k8s.io/apimachinery's name rules, matched by hand: they are all
// anchored character-class patterns, and std::regex would cost far more than these scans.
#include "trainer/names.hpp"

#include "api/ascii.hpp"

#include <boost/json/string_view.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>

namespace trainer {

namespace {

constexpr std::size_t kDns1123LabelMaxLength = 63;
constexpr std::size_t kDns1123SubdomainMaxLength = 253;
constexpr std::size_t kDns1035LabelMaxLength = 63;
constexpr std::size_t kLabelKeyMaxLength = 63;
constexpr std::size_t kLabelValueMaxLength = 63;

constexpr const char* kDns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr const char* kDns1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character";
constexpr const char* kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr const char* kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";
constexpr const char* kDns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
constexpr const char* kDns1035LabelErrMsg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character";
constexpr const char* kLabelKeyFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr const char* kLabelKeyErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr const char* kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr const char* kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";
constexpr const char* kCIdentifierFmt = "[A-Za-z_][A-Za-z0-9_]*";
constexpr const char* kCIdentifierErrMsg =
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_'";
constexpr const char* kEnvVarNameFmt = "[-._a-zA-Z][-._a-zA-Z0-9]*";
constexpr const char* kEnvVarNameErrMsg =
    "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', "
    "or '.', and must not start with a digit";
constexpr const char* kConfigMapKeyFmt = "[-._a-zA-Z0-9]+";
constexpr const char* kConfigMapKeyErrMsg =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
constexpr const char* kHttpPathFmt = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";

using ascii::is_alnum;
using ascii::is_alpha;
using ascii::is_digit;
using ascii::is_lower;
using ascii::is_lower_alnum;

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool matches_dns1123_label(std::string_view s) noexcept {
  if (s.empty() || !is_lower_alnum(s.front()) || !is_lower_alnum(s.back())) return false;
  for (const char c : s) {
    if (!is_lower_alnum(c) && c != '-') return false;
  }
  return true;
}

bool matches_dns1123_subdomain(std::string_view s) noexcept {
  while (true) {
    const auto dot = s.find('.');
    if (!matches_dns1123_label(s.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool matches_label_key_name(std::string_view s) noexcept {
  if (s.empty() || !is_alnum(s.front()) || !is_alnum(s.back())) return false;
  for (const char c : s) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// validation.RegexError / content.RegexError (the same text).
std::string regex_error(std::string msg, const char* fmt,
                        std::initializer_list<const char*> examples) {
  if (examples.size() == 0) return msg + " (regex used for validation is '" + fmt + "')";
  msg += " (e.g. ";
  bool first = true;
  for (const char* example : examples) {
    if (!first) msg += " or ";
    first = false;
    msg += "'";
    msg += example;
    msg += "', ";
  }
  msg += "regex used for validation is '";
  msg += fmt;
  msg += "')";
  return msg;
}

// validation.MaxLenError.
std::string max_len_characters(std::size_t n) {
  return "must be no more than " + std::to_string(n) + " characters";
}
// content.MaxLenError, which upstream words in bytes since v0.35.
std::string max_len_bytes(std::size_t n) {
  return "must be no more than " + std::to_string(n) + " bytes";
}

NameMessages dns1123_subdomain(std::string_view value, std::string (*max_len)(std::size_t)) {
  NameMessages errs;
  if (value.size() > kDns1123SubdomainMaxLength) {
    errs.push_back(max_len(kDns1123SubdomainMaxLength));
  }
  if (!matches_dns1123_subdomain(value)) {
    errs.push_back(regex_error(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

// hasChDirPrefix: `.`, `..` and names starting with `..` would step out of a folder.
void has_chdir_prefix(std::string_view value, NameMessages& errs) {
  if (value == ".") {
    errs.emplace_back("must not be '.'");
  } else if (value == "..") {
    errs.emplace_back("must not be '..'");
  } else if (value.substr(0, 2) == "..") {
    errs.emplace_back("must not start with '..'");
  }
}

boost::json::value json_string(std::string_view s) {
  return boost::json::value(boost::json::string_view(s.data(), s.size()));
}

}  // namespace

NameMessages is_dns1123_label(std::string_view value) {
  NameMessages errs;
  if (value.size() > kDns1123LabelMaxLength) {
    errs.push_back(max_len_characters(kDns1123LabelMaxLength));
  }
  if (!matches_dns1123_label(value)) {
    if (matches_dns1123_subdomain(value)) {
      // A valid subdomain but not a label: the dots are the only problem.
      errs.emplace_back("must not contain dots");
    } else {
      errs.push_back(regex_error(kDns1123LabelErrMsg, kDns1123LabelFmt, {"my-name", "123-abc"}));
    }
  }
  return errs;
}

NameMessages is_dns1123_subdomain(std::string_view value) {
  return dns1123_subdomain(value, max_len_characters);
}

NameMessages is_dns1035_label(std::string_view value) {
  NameMessages errs;
  if (value.size() > kDns1035LabelMaxLength) {
    errs.push_back(max_len_characters(kDns1035LabelMaxLength));
  }
  const bool ok =
      !value.empty() && is_lower(value.front()) && is_lower_alnum(value.back()) &&
      value.find_first_not_of("-abcdefghijklmnopqrstuvwxyz0123456789") == std::string_view::npos;
  if (!ok) {
    errs.push_back(regex_error(kDns1035LabelErrMsg, kDns1035LabelFmt, {"my-name", "abc-123"}));
  }
  return errs;
}

NameMessages is_qualified_name(std::string_view value) {
  NameMessages errs;
  std::string_view name = value;
  const auto slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back("a valid label key " +
                     regex_error(kLabelKeyErrMsg, kLabelKeyFmt, {"MyName", "my.name", "123-abc"}) +
                     " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    const std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.emplace_back("prefix part must be non-empty");
    } else {
      for (std::string& msg : dns1123_subdomain(prefix, max_len_bytes)) {
        errs.push_back("prefix part " + msg);
      }
    }
  }
  if (name.empty()) {
    errs.emplace_back("name part must be non-empty");
  } else if (name.size() > kLabelKeyMaxLength) {
    errs.push_back("name part " + max_len_bytes(kLabelKeyMaxLength));
  }
  if (!matches_label_key_name(name)) {
    errs.push_back("name part " +
                   regex_error(kLabelKeyErrMsg, kLabelKeyFmt, {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

NameMessages is_valid_label_value(std::string_view value) {
  NameMessages errs;
  if (value.size() > kLabelValueMaxLength) errs.push_back(max_len_bytes(kLabelValueMaxLength));
  if (!value.empty() && !matches_label_key_name(value)) {
    errs.push_back(
        regex_error(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

NameMessages is_c_identifier(std::string_view value) {
  const bool ok =
      !value.empty() && (is_alpha(value.front()) || value.front() == '_') &&
      value.find_first_not_of("_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") ==
          std::string_view::npos;
  if (ok) return {};
  return {regex_error(kCIdentifierErrMsg, kCIdentifierFmt, {"my_name", "MY_NAME", "MyName"})};
}

NameMessages is_env_var_name(std::string_view value) {
  NameMessages errs;
  const bool ok = !value.empty() && !is_digit(value.front()) &&
                  value.find_first_not_of(
                      "-._abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") ==
                      std::string_view::npos;
  if (!ok) {
    errs.push_back(regex_error(kEnvVarNameErrMsg, kEnvVarNameFmt,
                               {"my.env-name", "MY_ENV.NAME", "MyEnvName1"}));
  }
  has_chdir_prefix(value, errs);
  return errs;
}

NameMessages is_config_map_key(std::string_view value) {
  NameMessages errs;
  if (value.size() > kDns1123SubdomainMaxLength) {
    errs.push_back(max_len_characters(kDns1123SubdomainMaxLength));
  }
  const bool ok =
      !value.empty() && value.find_first_not_of(
                            "-._abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") ==
                            std::string_view::npos;
  if (!ok) {
    errs.push_back(
        regex_error(kConfigMapKeyErrMsg, kConfigMapKeyFmt, {"key.name", "KEY_NAME", "key-name"}));
  }
  has_chdir_prefix(value, errs);
  return errs;
}

std::vector<FieldError> is_domain_prefixed_path(const std::string& path, std::string_view value) {
  std::vector<FieldError> errs;
  if (value.empty()) {
    errs.push_back(field_required(path, ""));
    return errs;
  }
  const auto slash = value.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == value.size()) {
    errs.push_back(field_invalid(path, json_string(value),
                                 "must be a domain-prefixed path (such as \"acme.io/foo\")"));
    return errs;
  }
  const std::string_view host = value.substr(0, slash);
  for (std::string& msg : is_dns1123_subdomain(host)) {
    errs.push_back(field_invalid(path, json_string(host), std::move(msg)));
  }
  const std::string_view rest = value.substr(slash + 1);
  if (rest.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                             "/-._~%!$&'()*+,;=:") != std::string_view::npos) {
    errs.push_back(
        field_invalid(path, json_string(rest), regex_error("Invalid path", kHttpPathFmt, {})));
  }
  return errs;
}

}  // namespace trainer
