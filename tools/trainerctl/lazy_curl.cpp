// SPDX-License-Identifier: Apache-2.0
//
// libcurl for trainerctl, loaded when a command first makes a request instead of when the
// program starts. libcurl and the 26 libraries it needs (GnuTLS, Kerberos, LDAP, SSH, ...) took
// two thirds of trainerctl's start-up (5.1 ms of task clock against 1.7 ms without them), paid
// by every command although only the cluster verbs talk HTTP.
//
// This file defines the libcurl functions the core calls. trainerctl is linked with
// `--as-needed`, so with every one of them defined here libcurl is not a DT_NEEDED entry of the
// program (the test `cli.lazy_curl` checks that). The first call loads libcurl.so.4 (its
// soname, the library the build was compiled against) with dlopen and forwards to it. The
// functions are not exported from trainerctl (nothing links against it), so libcurl's own calls
// never reach these.
//
// The three variadic functions take one argument after the option whose type the option
// decides. It is read with that type, by libcurl's own rules (curl/curl.h: the option's range
// names its type), and passed on.
//
// When libcurl cannot be loaded, each function fails as libcurl does when it cannot initialise
// (CURLE_FAILED_INIT, a null handle, ...) and the reason is printed once on stderr.
// The functions are defined here, so not as curl/typecheck-gcc.h's checking macros.
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <dlfcn.h>

#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <tuple>

// The functions the core calls.
#define TRAINERCTL_CURL_FUNCTIONS(X) \
  X(curl_global_init)                \
  X(curl_easy_init)                  \
  X(curl_easy_cleanup)               \
  X(curl_easy_escape)                \
  X(curl_easy_getinfo)               \
  X(curl_easy_setopt)                \
  X(curl_easy_strerror)              \
  X(curl_free)                       \
  X(curl_multi_add_handle)           \
  X(curl_multi_cleanup)              \
  X(curl_multi_info_read)            \
  X(curl_multi_init)                 \
  X(curl_multi_perform)              \
  X(curl_multi_poll)                 \
  X(curl_multi_remove_handle)        \
  X(curl_multi_wakeup)               \
  X(curl_share_cleanup)              \
  X(curl_share_init)                 \
  X(curl_share_setopt)               \
  X(curl_slist_append)               \
  X(curl_slist_free_all)             \
  X(curl_url)                        \
  X(curl_url_cleanup)                \
  X(curl_url_get)                    \
  X(curl_url_set)

namespace {

// libcurl 7.x and 8.x share the soname libcurl.so.4.
constexpr const char* kLibcurlSoname = "libcurl.so.4";

struct Libcurl {
#define TRAINERCTL_CURL_POINTER(name) decltype(&::name) name = nullptr;
  TRAINERCTL_CURL_FUNCTIONS(TRAINERCTL_CURL_POINTER)
#undef TRAINERCTL_CURL_POINTER
  bool loaded = false;
};

Libcurl load() {
  Libcurl lib;
  void* handle = dlopen(kLibcurlSoname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::fprintf(stderr, "trainerctl: cannot load %s: %s\n", kLibcurlSoname, dlerror());
    return lib;
  }
  bool all = true;
#define TRAINERCTL_CURL_RESOLVE(name)                                          \
  lib.name = reinterpret_cast<decltype(lib.name)>(dlsym(handle, #name));       \
  if (lib.name == nullptr) {                                                   \
    std::fprintf(stderr, "trainerctl: %s has no %s\n", kLibcurlSoname, #name); \
    all = false;                                                               \
  }
  TRAINERCTL_CURL_FUNCTIONS(TRAINERCTL_CURL_RESOLVE)
#undef TRAINERCTL_CURL_RESOLVE
  // The library stays loaded until the process ends, as a DT_NEEDED library would.
  lib.loaded = all;
  return lib;
}

const Libcurl& libcurl() {
  static const Libcurl lib = load();
  return lib;
}

// The type of parameter I of libcurl's declaration of F: curl_url_get's URL handle became
// `const` in libcurl 8, and each definition here must match the headers it is built with.
template <class F, std::size_t I>
struct Param;
template <class R, class... A, std::size_t I>
struct Param<R (*)(A...), I> {
  using type = std::tuple_element_t<I, std::tuple<A...>>;
};
template <class F, std::size_t I>
using param_t = typename Param<F, I>::type;

}  // namespace

extern "C" {

CURLcode curl_global_init(long flags) {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_global_init(flags) : CURLE_FAILED_INIT;
}

CURL* curl_easy_init() {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_easy_init() : nullptr;
}

void curl_easy_cleanup(CURL* easy) {
  const auto& lib = libcurl();
  if (lib.loaded) lib.curl_easy_cleanup(easy);
}

char* curl_easy_escape(CURL* easy, const char* text, int length) {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_easy_escape(easy, text, length) : nullptr;
}

// Every CURLINFO_* takes a pointer to where the answer goes.
CURLcode curl_easy_getinfo(CURL* easy, CURLINFO info, ...) {
  const auto& lib = libcurl();
  if (!lib.loaded) return CURLE_FAILED_INIT;
  va_list args;
  va_start(args, info);
  void* out = va_arg(args, void*);
  va_end(args);
  return lib.curl_easy_getinfo(easy, info, out);
}

// The option's range gives its argument's type (curl/curl.h, CURLOPTTYPE_*).
CURLcode curl_easy_setopt(CURL* easy, CURLoption option, ...) {
  const auto& lib = libcurl();
  if (!lib.loaded) return CURLE_FAILED_INIT;
  va_list args;
  va_start(args, option);
  CURLcode rc = CURLE_OK;
  if (option < CURLOPTTYPE_OBJECTPOINT) {
    rc = lib.curl_easy_setopt(easy, option, va_arg(args, long));
  } else if (option < CURLOPTTYPE_FUNCTIONPOINT) {
    rc = lib.curl_easy_setopt(easy, option, va_arg(args, void*));
  } else if (option < CURLOPTTYPE_OFF_T) {
    using AnyFunction = void (*)();
    rc = lib.curl_easy_setopt(easy, option, va_arg(args, AnyFunction));
  } else if (option < CURLOPTTYPE_BLOB) {
    rc = lib.curl_easy_setopt(easy, option, va_arg(args, curl_off_t));
  } else {
    rc = lib.curl_easy_setopt(easy, option, va_arg(args, struct curl_blob*));
  }
  va_end(args);
  return rc;
}

const char* curl_easy_strerror(CURLcode code) {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_easy_strerror(code) : "libcurl could not be loaded";
}

void curl_free(void* p) {
  const auto& lib = libcurl();
  if (lib.loaded) lib.curl_free(p);
}

CURLMcode curl_multi_add_handle(CURLM* multi, CURL* easy) {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_multi_add_handle(multi, easy) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_cleanup(CURLM* multi) {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_multi_cleanup(multi) : CURLM_INTERNAL_ERROR;
}

CURLMsg* curl_multi_info_read(CURLM* multi, int* queued) {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_multi_info_read(multi, queued) : nullptr;
}

CURLM* curl_multi_init() {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_multi_init() : nullptr;
}

CURLMcode curl_multi_perform(CURLM* multi, int* running) {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_multi_perform(multi, running) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_poll(CURLM* multi, struct curl_waitfd extra[], unsigned int count,
                          int timeout_ms, int* ready) {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_multi_poll(multi, extra, count, timeout_ms, ready)
                    : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_remove_handle(CURLM* multi, CURL* easy) {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_multi_remove_handle(multi, easy) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_wakeup(CURLM* multi) {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_multi_wakeup(multi) : CURLM_INTERNAL_ERROR;
}

CURLSHcode curl_share_cleanup(CURLSH* share) {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_share_cleanup(share) : CURLSHE_NOT_BUILT_IN;
}

CURLSH* curl_share_init() {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_share_init() : nullptr;
}

// CURLSHOPT_SHARE and _UNSHARE take an int (a curl_lock_data), the lock functions a function,
// CURLSHOPT_USERDATA a pointer (libcurl's share.c reads them so).
CURLSHcode curl_share_setopt(CURLSH* share, CURLSHoption option, ...) {
  const auto& lib = libcurl();
  if (!lib.loaded) return CURLSHE_NOT_BUILT_IN;
  va_list args;
  va_start(args, option);
  CURLSHcode rc = CURLSHE_OK;
  switch (option) {
    case CURLSHOPT_SHARE:
    case CURLSHOPT_UNSHARE: rc = lib.curl_share_setopt(share, option, va_arg(args, int)); break;
    case CURLSHOPT_LOCKFUNC:
      rc = lib.curl_share_setopt(share, option, va_arg(args, curl_lock_function));
      break;
    case CURLSHOPT_UNLOCKFUNC:
      rc = lib.curl_share_setopt(share, option, va_arg(args, curl_unlock_function));
      break;
    default: rc = lib.curl_share_setopt(share, option, va_arg(args, void*)); break;
  }
  va_end(args);
  return rc;
}

struct curl_slist* curl_slist_append(struct curl_slist* list, const char* text) {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_slist_append(list, text) : nullptr;
}

void curl_slist_free_all(struct curl_slist* list) {
  const auto& lib = libcurl();
  if (lib.loaded) lib.curl_slist_free_all(list);
}

CURLU* curl_url() {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_url() : nullptr;
}

void curl_url_cleanup(CURLU* url) {
  const auto& lib = libcurl();
  if (lib.loaded) lib.curl_url_cleanup(url);
}

CURLUcode curl_url_get(param_t<decltype(&::curl_url_get), 0> url, CURLUPart part, char** out,
                       unsigned int flags) {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_url_get(url, part, out, flags) : CURLUE_OUT_OF_MEMORY;
}

CURLUcode curl_url_set(CURLU* url, CURLUPart part, const char* text, unsigned int flags) {
  const auto& lib = libcurl();
  return lib.loaded ? lib.curl_url_set(url, part, text, flags) : CURLUE_OUT_OF_MEMORY;
}

}  // extern "C"
