// SPDX-License-Identifier: Apache-2.0
#include "kube/client/curl_handles.hpp"

#include <mutex>

namespace trainer::kube::detail {

void ensure_curl_global_init() {
  static std::once_flag once;
  // The result is not checked: a failed init makes every later handle creation fail, which
  // each caller reports.
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

EasyHandle new_easy() {
  ensure_curl_global_init();
  return EasyHandle(curl_easy_init());
}

MultiHandle new_multi() {
  ensure_curl_global_init();
  return MultiHandle(curl_multi_init());
}

ShareHandle new_share() {
  ensure_curl_global_init();
  return ShareHandle(curl_share_init());
}

UrlHandle new_url() {
  ensure_curl_global_init();
  return UrlHandle(curl_url());
}

bool slist_append(Slist& list, const char* line) {
  curl_slist* next = curl_slist_append(list.get(), line);
  if (next == nullptr) return false;
  // curl_slist_append returns the head, which is the old head unless the list was empty.
  (void)list.release();
  list.reset(next);
  return true;
}

}  // namespace trainer::kube::detail
