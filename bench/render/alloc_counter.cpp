// SPDX-License-Identifier: Apache-2.0
//
// Counting replacements of the global allocation functions. Each block carries a header with
// its size so that unsized operator delete can subtract it; the header is max_align_t wide so
// the pointer handed out keeps malloc's alignment. Over-aligned new/delete are not replaced:
// the library's defaults pair with each other and nothing in the pipeline over-aligns.
#include "alloc_counter.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<std::size_t> g_allocated{0};
std::atomic<std::size_t> g_live{0};
std::atomic<std::size_t> g_peak{0};
std::atomic<bool> g_counting{true};

// The header holds the block's size and whether it was counted, so that a block allocated while
// counting was off is not subtracted when it is freed while counting is on.
struct Header {
  std::size_t size;
  bool counted;
};
constexpr std::size_t kHeader = alignof(std::max_align_t);
static_assert(sizeof(Header) <= kHeader, "the header must fit in front of the block");

void* counted_alloc(std::size_t size) noexcept {
  auto* base = static_cast<unsigned char*>(std::malloc(size + kHeader));
  if (base == nullptr) return nullptr;
  const bool counting = g_counting.load(std::memory_order_relaxed);
  *reinterpret_cast<Header*>(base) = Header{size, counting};
  if (counting) {
    g_allocated.fetch_add(size, std::memory_order_relaxed);
    const std::size_t live = g_live.fetch_add(size, std::memory_order_relaxed) + size;
    std::size_t peak = g_peak.load(std::memory_order_relaxed);
    while (live > peak && !g_peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
    }
  }
  return base + kHeader;
}

void counted_free(void* p) noexcept {
  if (p == nullptr) return;
  auto* base = static_cast<unsigned char*>(p) - kHeader;
  const Header header = *reinterpret_cast<const Header*>(base);
  if (header.counted) g_live.fetch_sub(header.size, std::memory_order_relaxed);
  std::free(base);
}

void* throwing_alloc(std::size_t size) {
  if (void* p = counted_alloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

}  // namespace

namespace bench {

AllocSnapshot alloc_snapshot() noexcept {
  return {g_allocated.load(), g_live.load(), g_peak.load()};
}

void reset_peak() noexcept {
  g_peak.store(g_live.load());
}

void set_counting(bool on) noexcept {
  g_counting.store(on, std::memory_order_relaxed);
}

}  // namespace bench

void* operator new(std::size_t size) {
  return throwing_alloc(size);
}
void* operator new[](std::size_t size) {
  return throwing_alloc(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return counted_alloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return counted_alloc(size == 0 ? 1 : size);
}
void operator delete(void* p) noexcept {
  counted_free(p);
}
void operator delete[](void* p) noexcept {
  counted_free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  counted_free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  counted_free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  counted_free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  counted_free(p);
}
