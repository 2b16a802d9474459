// SPDX-License-Identifier: Apache-2.0
// All-reduce for communicators whose ranks all share one node, through a small MPI-3
// shared-memory window (private; includes mpi.h). The algorithm and its numbers are in
// docs/collectives.md ("all_reduce on one node").
#pragma once

#include "collectives/comm_impl.hpp"

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace trainer::collectives::detail {

/// Reduce-scatter through shared memory, then all-gather through shared memory, pipelined in
/// chunks that stay in cache. Rank r owns block r of the buffer (the blocks of the ring:
/// count / n elements, the first count % n one longer). Round k works on the k-th chunk of
/// every block:
///   1. every rank copies its own data of each block it does not own into its input slot;
///   2. the owner of a block combines the n contributions in rank order (its own read from its
///      buffer, the others from their input slots) into its output slot, and writes it to
///      its buffer;
///   3. every rank copies the other owners' output slots into its buffer.
/// Small buffers (1 KiB; 16 KiB with more ranks than cores) take one exchange instead: every
/// rank stages its whole buffer and folds all n of them itself, in rank order.
/// Each element is combined by one rank in one order, so every rank gets bit-identical
/// results. A rank never reads another rank's buffer, only the window, so a call returns as
/// soon as this rank has its result. Slots are double-buffered; a round number per rank
/// ("input staged", "output ready") orders the steps, and a rank that has seen round k staged
/// by every peer knows they finished round k - 1, so no other handshake is needed. A wait
/// spins (or yields) briefly, then sleeps on the round number (a futex word), so ranks that
/// share cores hand them over instead of spinning.
class ShmAllReduce {
 public:
  /// Default bytes of one block per round (a multiple of every element size).
  static constexpr std::size_t kDefaultChunkBytes = std::size_t{256} << 10U;

  /// Collective over `comm` (every rank calls it with the same arguments); the ranks of `comm`
  /// must share one node. `chunk_bytes` is capped so that a rank's slots stay within 4 MiB,
  /// and rounded down to a multiple of 64 (at least 64).
  /// Each wait for a peer gives up after `timeout` (kTimeout; the object is unusable
  /// afterwards).
  static Result<std::unique_ptr<ShmAllReduce>> create(MPI_Comm comm,
                                                      std::chrono::milliseconds timeout,
                                                      std::size_t chunk_bytes);
  ShmAllReduce(const ShmAllReduce&) = delete;
  ShmAllReduce& operator=(const ShmAllReduce&) = delete;
  /// Frees the window (collective, like the communicator's own MPI_Comm_free); nothing after
  /// MPI_Finalize.
  ~ShmAllReduce();

  /// recv = op over ranks of send (send == recv: in place); kAvg divides the sum. Every rank
  /// calls it with the same count, type and op.
  Result<void> run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op);

 private:
  struct Counter;  // a published round number (a futex word)
  struct Flags;    // one rank's counters, at the start of its segment
  using Clock = std::chrono::steady_clock;

  ShmAllReduce() = default;
  [[nodiscard]] Flags& flags(std::size_t peer) const noexcept;
  [[nodiscard]] char* in_slot(std::size_t peer, std::size_t parity,
                              std::size_t block) const noexcept;
  [[nodiscard]] char* out_slot(std::size_t peer, std::size_t parity) const noexcept;
  static void publish(Counter& counter, std::uint32_t round) noexcept;
  bool wait_for(Counter& counter, std::uint32_t round) const noexcept;
  Result<void> stalled(std::size_t peer, const char* step);
  Result<void> fold_all(const void* send, void* recv, std::size_t count, DataType type,
                        ReduceOp op);
  Result<void> scatter_gather(const void* send, void* recv, std::size_t count, DataType type,
                              ReduceOp op);

  MPI_Win win_ = MPI_WIN_NULL;
  std::vector<char*> segments_;  // every rank's segment, mapped into this process
  std::size_t rank_ = 0;
  std::size_t size_ = 1;
  std::size_t chunk_ = kDefaultChunkBytes;
  std::uint32_t round_ = 0;  // wraps; see reached()
  std::chrono::milliseconds timeout_{};
  bool yield_ = false;     // waits yield instead of spinning (more ranks than cores)
  std::size_t small_ = 0;  // buffers up to this size take the one-exchange path
  bool broken_ = false;
};

}  // namespace trainer::collectives::detail
