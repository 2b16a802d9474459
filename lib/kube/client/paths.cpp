// SPDX-License-Identifier: Apache-2.0
#include "kube/client/paths.hpp"

#include <curl/curl.h>

#include <memory>

namespace trainer::kube::detail {

Result<void> check_path_segment(std::string_view what, std::string_view value) {
  if (value.empty()) return fail(ErrorCode::kInvalidArgument, std::string(what) + " is empty");
  // The server would read these as other paths (`..`) or decode them (`%`): client-go refuses
  // them before sending, and so do we.
  if (value == "." || value == "..") {
    return fail(ErrorCode::kInvalidArgument,
                std::string(what) + " may not be \"" + std::string(value) + "\"");
  }
  for (const char c : {'/', '%'}) {
    if (value.find(c) != std::string_view::npos) {
      return fail(ErrorCode::kInvalidArgument, std::string(what) + " \"" + std::string(value) +
                                                   "\" may not contain '" + c + "'");
    }
  }
  return {};
}

std::string group_version_path(std::string_view group, std::string_view version) {
  if (group.empty()) return "/api/" + std::string(version);
  return "/apis/" + std::string(group) + "/" + std::string(version);
}

Result<std::string> resource_path(const Resource& resource, std::string_view ns,
                                  std::string_view name, std::string_view subresource) {
  std::string path = group_version_path(resource.group, resource.version);
  if (resource.namespaced && !ns.empty()) {
    if (auto ok = check_path_segment("namespace", ns); !ok) return tl::unexpected(ok.error());
    path += "/namespaces/" + url_escape(ns);
  }
  path += "/" + resource.resource;
  if (!name.empty()) {
    if (auto ok = check_path_segment("name", name); !ok) return tl::unexpected(ok.error());
    path += "/" + url_escape(name);
  }
  if (!subresource.empty()) {
    if (name.empty()) {
      return fail(ErrorCode::kInvalidArgument,
                  "subresource \"" + std::string(subresource) + "\" needs an object name");
    }
    if (auto ok = check_path_segment("subresource", subresource); !ok) {
      return tl::unexpected(ok.error());
    }
    path += "/" + std::string(subresource);
  }
  return path;
}

std::string url_escape(std::string_view text) {
  // libcurl ignores the handle since 7.82, so no easy handle is needed.
  const std::unique_ptr<char, decltype(&curl_free)> escaped(
      curl_easy_escape(nullptr, text.data(), static_cast<int>(text.size())), &curl_free);
  return escaped ? std::string(escaped.get()) : std::string();
}

Query& Query::add(std::string_view key, std::string_view value) {
  text_ += text_.empty() ? '?' : '&';
  text_ += url_escape(key);
  text_ += '=';
  text_ += url_escape(value);
  return *this;
}

Query& Query::add_if(std::string_view key, std::string_view value) {
  if (!value.empty()) add(key, value);
  return *this;
}

std::string Query::str() const {
  return text_;
}

const char* to_query_value(FieldValidation validation) noexcept {
  switch (validation) {
    case FieldValidation::kStrict: return "Strict";
    case FieldValidation::kWarn: return "Warn";
    case FieldValidation::kIgnore: return "Ignore";
  }
  return "Strict";
}

}  // namespace trainer::kube::detail
