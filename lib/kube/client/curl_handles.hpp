// SPDX-License-Identifier: Apache-2.0
//
// Owning wrappers of libcurl handles, and the one process-wide curl_global_init.
#pragma once

#include <curl/curl.h>

#include <memory>

namespace trainer::kube::detail {

/// Calls curl_global_init once per process, from whichever thread gets here first (libcurl
/// 7.88 does not make curl_global_init itself thread-safe). Every handle factory below calls it.
void ensure_curl_global_init();

struct EasyDeleter {
  void operator()(CURL* easy) const noexcept { curl_easy_cleanup(easy); }
};
struct MultiDeleter {
  void operator()(CURLM* multi) const noexcept { curl_multi_cleanup(multi); }
};
struct ShareDeleter {
  void operator()(CURLSH* share) const noexcept { curl_share_cleanup(share); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const noexcept { curl_slist_free_all(list); }
};
struct UrlDeleter {
  void operator()(CURLU* url) const noexcept { curl_url_cleanup(url); }
};

using EasyHandle = std::unique_ptr<CURL, EasyDeleter>;
using MultiHandle = std::unique_ptr<CURLM, MultiDeleter>;
using ShareHandle = std::unique_ptr<CURLSH, ShareDeleter>;
using Slist = std::unique_ptr<curl_slist, SlistDeleter>;
using UrlHandle = std::unique_ptr<CURLU, UrlDeleter>;

/// What a null handle from the factories below means: libcurl is out of memory, or it could
/// not initialise (or, in a program that loads libcurl on first use, could not be loaded).
inline constexpr const char* kNoHandleMessage =
    "libcurl: cannot create a handle (out of memory, or libcurl could not be initialised)";

/// New handles (null when libcurl is out of memory or could not initialise).
[[nodiscard]] EasyHandle new_easy();
[[nodiscard]] MultiHandle new_multi();
[[nodiscard]] ShareHandle new_share();
[[nodiscard]] UrlHandle new_url();

/// Appends `line` to `list` (a header line); false when libcurl is out of memory.
[[nodiscard]] bool slist_append(Slist& list, const char* line);

}  // namespace trainer::kube::detail
