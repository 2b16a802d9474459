// SPDX-License-Identifier: Apache-2.0
//
// Heap accounting for the render benchmark: alloc_counter.cpp replaces the global operator
// new/delete of this binary with versions that keep a size header and count bytes while counting
// is on.
#pragma once

#include <cstddef>

namespace bench {

struct AllocSnapshot {
  std::size_t allocated = 0;  ///< bytes ever allocated
  std::size_t live = 0;       ///< bytes allocated and not yet freed
  std::size_t peak = 0;       ///< highest `live` since the last `reset_peak`
};

[[nodiscard]] AllocSnapshot alloc_snapshot() noexcept;
/// Starts a new peak measurement from the bytes live now.
void reset_peak() noexcept;
/// Turns the counting on or off (on at start). Off, an allocation costs a malloc and a header
/// write, so that timed loops measure the allocator the library really gets and not the
/// counters' atomic updates.
void set_counting(bool on) noexcept;

}  // namespace bench
