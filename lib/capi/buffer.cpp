// SPDX-License-Identifier: Apache-2.0
// trainer_buffer: bytes allocated by libtrainer's own allocator and released by it, so callers
// never mix allocators (their free() may belong to another C runtime).
#include "capi/capi.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace trainer::capi {
namespace {

void* buffer_alloc(std::size_t size) noexcept {
  return std::malloc(size);
}
void buffer_release(void* p) noexcept {
  std::free(p);
}

}  // namespace

void buffer_assign(trainer_buffer* out, std::string_view text) {
  auto* data = static_cast<char*>(buffer_alloc(text.size() + 1));
  if (data == nullptr) throw std::bad_alloc();
  if (!text.empty()) std::memcpy(data, text.data(), text.size());
  data[text.size()] = '\0';
  out->data = data;
  out->len = text.size();
}

}  // namespace trainer::capi

extern "C" {

void trainer_buffer_free(trainer_buffer* buf) {
  trainer::capi::guard_void([&] {
    if (buf == nullptr) return;
    trainer::capi::buffer_release(buf->data);
    buf->data = nullptr;
    buf->len = 0;
  });
}

}  // extern "C"
