// SPDX-License-Identifier: Apache-2.0
// Single-node all-reduce through an MPI-3 shared-memory window (see shm_all_reduce.hpp).
#include "collectives/mpi/shm_all_reduce.hpp"

#include "collectives/mpi/mpi_backend.hpp"

#include <sched.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <climits>
#include <cstring>
#include <ctime>
#include <new>
#include <string>

namespace trainer::collectives::detail {

// Counters live in memory that other processes map: they must be lock-free (address-free), and
// a futex word is 32 bits.
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);
static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));

// One published round number and the count of peers asleep on it (see wait_for), on a cache
// line of its own: only its owner writes `round`.
struct alignas(64) ShmAllReduce::Counter {
  std::atomic<std::uint32_t> round{0};
  std::atomic<std::uint32_t> sleepers{0};
};

struct ShmAllReduce::Flags {
  Counter staged;   // last round whose input slots are full
  Counter reduced;  // last round whose output slot is full
};

namespace {

constexpr std::size_t kFlagsBytes = 128;
// The counters' alignment (a cache line each). Every process maps the window's shared pages at
// page-aligned addresses, so a byte's address modulo 64 is the same in all of them and each
// aligns its view of a segment to the same byte.
constexpr std::size_t kSegmentAlign = 64;

char* segment_start(void* base) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(base);
  const std::uintptr_t aligned = (at + kSegmentAlign - 1) & ~std::uintptr_t{kSegmentAlign - 1};
  return static_cast<char*>(base) + (aligned - at);
}
// Slots of one rank at most (2 (n + 1) chunks): 4 MiB, so 256 KiB chunks up to 7 ranks.
constexpr std::size_t kMaxSegmentBytes = std::size_t{4} << 20U;
// Buffers up to which every rank folds the whole buffer itself after one exchange (fold_all):
// that saves the second exchange and costs n - 1 reductions of the whole buffer instead of
// one block. With more ranks than cores every exchange may cost a context switch, so the
// limit is higher there. (Not tuned finely: with 2 ranks on 2 cores, 1 KiB ran at 0.9x raw
// MPI_Allreduce in the quiet run, 512 B and 2 KiB at 1.3-1.8x.)
constexpr std::size_t kSmall = std::size_t{1} << 10U;
constexpr std::size_t kSmallOversubscribed = std::size_t{16} << 10U;
// Out-of-place buffers from which the result is written with non-temporal stores: below, both
// buffers of both ranks stay in the last-level cache between calls (32 MiB here).
constexpr std::size_t kStreamingBytes = std::size_t{8} << 20U;
// How long a wait spins (or yields) before it sleeps (see wait_for).
constexpr std::chrono::nanoseconds kSpin{std::chrono::microseconds(50)};

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Round numbers wrap at 2^32; ranks are never more than two rounds apart.
bool reached(std::uint32_t value, std::uint32_t round) noexcept {
  return static_cast<std::int32_t>(value - round) >= 0;
}

#if defined(__linux__)
// Futexes on the window's shared pages: not FUTEX_PRIVATE_FLAG, the waiters are other processes.
void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t seen,
                std::chrono::nanoseconds limit) noexcept {
  const auto ns = limit.count();
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(ns / 1000000000);
  ts.tv_nsec = static_cast<long>(ns % 1000000000);
  // EINTR, EAGAIN (the word moved on) and ETIMEDOUT all mean: look again.
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, seen, &ts, nullptr, 0);
}

void futex_wake_all(std::atomic<std::uint32_t>& word) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, INT_MAX, nullptr, nullptr,
          0);
}
#endif

}  // namespace

void ShmAllReduce::publish(Counter& counter, std::uint32_t round) noexcept {
  // seq_cst store, then seq_cst load of `sleepers`: with the sleeper's seq_cst increment, then
  // load of `round` (wait_for), at least one of the two sees the other, so no wake is lost.
  counter.round.store(round, std::memory_order_seq_cst);
#if defined(__linux__)
  if (counter.sleepers.load(std::memory_order_seq_cst) != 0) futex_wake_all(counter.round);
#endif
}

// Waits until `counter` reaches `round`, up to timeout_ (each wait on its own: a long buffer
// is no reason to give up on a peer that keeps making progress). First for kSpin it spins (a
// peer with a core of its own is usually microseconds away) or, with more ranks than cores,
// yields (a peer that waits for this core gets it, and comes back as soon as it waits in
// turn); then it sleeps on a futex, so that a rank whose peer lost its core to other work
// hands its core over instead of burning the time slice the peer needs.
bool ShmAllReduce::wait_for(Counter& counter, std::uint32_t round) const noexcept {
  if (reached(counter.round.load(std::memory_order_acquire), round)) return true;
  const Clock::time_point start = Clock::now();
  const Clock::time_point spin_end = start + kSpin;
  const Clock::time_point deadline = start + timeout_;
  for (unsigned i = 1;; ++i) {
    if (yield_) {
      sched_yield();
    } else {
      cpu_relax();
    }
    if (reached(counter.round.load(std::memory_order_acquire), round)) return true;
    if ((yield_ || i % 64U == 0) && Clock::now() >= spin_end) break;
  }
  for (;;) {
    const Clock::time_point now = Clock::now();
    if (now >= deadline) return reached(counter.round.load(std::memory_order_acquire), round);
#if defined(__linux__)
    counter.sleepers.fetch_add(1, std::memory_order_seq_cst);
    const std::uint32_t seen = counter.round.load(std::memory_order_seq_cst);
    if (!reached(seen, round)) futex_wait(counter.round, seen, deadline - now);
    counter.sleepers.fetch_sub(1, std::memory_order_seq_cst);
#else
    sched_yield();
#endif
    if (reached(counter.round.load(std::memory_order_acquire), round)) return true;
  }
}

namespace {

// Copies a finished chunk into the caller's buffer. Out of place, a large destination is not in
// cache, and a plain store would first read every line from memory (write-allocate) only to
// overwrite it; non-temporal stores skip that read. In place the destination was read in this
// round, and a small buffer stays in cache from call to call: plain stores are cheaper there.
void copy_out(char* dst, const char* src, std::size_t bytes, bool streaming) noexcept {
#if defined(__SSE2__)
  if (streaming && bytes >= 256) {
    const std::size_t head = (16 - reinterpret_cast<std::uintptr_t>(dst) % 16) % 16;
    std::memcpy(dst, src, head);
    dst += head;
    src += head;
    bytes -= head;
    const std::size_t body = bytes / 64 * 64;
    for (std::size_t i = 0; i < body; i += 64) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
      const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
    }
    std::memcpy(dst + body, src + body, bytes - body);
    return;
  }
#endif
  std::memcpy(dst, src, bytes);
}

}  // namespace

Result<std::unique_ptr<ShmAllReduce>> ShmAllReduce::create(MPI_Comm comm,
                                                           std::chrono::milliseconds timeout,
                                                           std::size_t chunk_bytes) {
  std::unique_ptr<ShmAllReduce> s(new ShmAllReduce());
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  s->rank_ = static_cast<std::size_t>(rank);
  s->size_ = static_cast<std::size_t>(size);
  // Segments stay within kMaxSegmentBytes however many ranks share the node.
  const std::size_t cap = kMaxSegmentBytes / (2 * (s->size_ + 1));
  s->chunk_ = std::max<std::size_t>(64, std::min(chunk_bytes, cap) / 64 * 64);
  s->timeout_ = timeout;
  // More ranks than cores: yield instead of spinning (see wait_for). The cores are those
  // any rank may run on (the union of their affinity masks), the same number on every rank,
  // which matters: the one-exchange limit below must agree.
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int rc = MPI_SUCCESS;
#if defined(__linux__)
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) CPU_ZERO(&mask);  // then sysconf's count
  cpu_set_t any;
  rc = MPI_Allreduce(&mask, &any, static_cast<int>(sizeof mask), MPI_BYTE, MPI_BOR, comm);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Allreduce (affinity)", rc);
  if (CPU_COUNT(&any) > 0) cores = CPU_COUNT(&any);
#endif
  const bool oversubscribed = cores > 0 && size > cores;
  s->yield_ = oversubscribed;
  s->small_ = std::min(oversubscribed ? kSmallOversubscribed : kSmall, s->size_ * s->chunk_);
  // Segment: counters, input slots [parity][block], output slots [parity]; kSegmentAlign more,
  // since Open MPI places a segment only 8-byte aligned (seen at page offset 0x108).
  const std::size_t bytes = kSegmentAlign + kFlagsBytes + 2 * (s->size_ + 1) * s->chunk_;
  MPI_Info info = MPI_INFO_NULL;
  rc = MPI_Info_create(&info);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Info_create", rc);
  // Each segment on its own pages, placed by its owner: no false sharing between segments.
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  char* mine = nullptr;
  rc = MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, info, comm, &mine, &s->win_);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Win_allocate_shared", rc);
  rc = MPI_Win_set_errhandler(s->win_, MPI_ERRORS_RETURN);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Win_set_errhandler", rc);
  s->segments_.resize(s->size_);
  for (int p = 0; p < size; ++p) {
    MPI_Aint len = 0;
    int unit = 0;
    void* base = nullptr;
    rc = MPI_Win_shared_query(s->win_, p, &len, &unit, &base);
    if (rc != MPI_SUCCESS) return mpi_fail("MPI_Win_shared_query", rc);
    s->segments_[static_cast<std::size_t>(p)] = segment_start(base);
  }
  static_assert(sizeof(Flags) <= kFlagsBytes);
  static_assert(alignof(Flags) <= kSegmentAlign);
  new (s->segments_[s->rank_]) Flags();
  // Nobody reads a peer's counters before the peer has initialised them.
  rc = MPI_Barrier(comm);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Barrier", rc);
  return s;
}

ShmAllReduce::~ShmAllReduce() {
  if (win_ != MPI_WIN_NULL && !mpi_finalized()) MPI_Win_free(&win_);
}

ShmAllReduce::Flags& ShmAllReduce::flags(std::size_t peer) const noexcept {
  return *std::launder(reinterpret_cast<Flags*>(segments_[peer]));
}

char* ShmAllReduce::in_slot(std::size_t peer, std::size_t parity,
                            std::size_t block) const noexcept {
  return segments_[peer] + kFlagsBytes + (parity * size_ + block) * chunk_;
}

char* ShmAllReduce::out_slot(std::size_t peer, std::size_t parity) const noexcept {
  return segments_[peer] + kFlagsBytes + (2 * size_ + parity) * chunk_;
}

Result<void> ShmAllReduce::stalled(std::size_t peer, const char* step) {
  broken_ = true;
  return fail(ErrorCode::kTimeout,
              "all_reduce: rank " + std::to_string(peer) + " did not " + step + " within " +
                  std::to_string(timeout_.count()) +
                  " ms (shared-memory all_reduce); this communicator's all_reduce is unusable now");
}

Result<void> ShmAllReduce::run(const void* send, void* recv, std::size_t count, DataType type,
                               ReduceOp op) {
  if (broken_) {
    return fail(ErrorCode::kTimeout,
                "all_reduce: an earlier shared-memory all_reduce timed out on this communicator");
  }
  if (count * size_of(type) <= small_) return fold_all(send, recv, count, type, op);
  return scatter_gather(send, recv, count, type, op);
}

// One exchange: every rank stages its whole buffer and folds all n of them itself, in rank
// order; the same operands in the same order give the same bits on every rank. (A peer that
// staged round k has finished round k - 1, as in scatter_gather.)
Result<void> ShmAllReduce::fold_all(const void* send, void* recv, std::size_t count, DataType type,
                                    ReduceOp op) {
  const std::size_t bytes = count * size_of(type);
  const ReduceOp combine = op == ReduceOp::kAvg ? ReduceOp::kSum : op;
  const std::uint32_t round = ++round_;
  const std::size_t parity = round & 1U;
  std::memcpy(in_slot(rank_, parity, 0), send, bytes);
  publish(flags(rank_).staged, round);
  for (std::size_t p = 0; p < size_; ++p) {
    if (p != rank_ && !wait_for(flags(p).staged, round)) {
      return stalled(p, "stage");
    }
    // recv = x0, then x_p op recv: the first step reads x0 from its slot (one pass, no copy).
    if (p != 0) {
      const void* acc = p == 1 ? in_slot(0, parity, 0) : recv;
      reduce_host(in_slot(p, parity, 0), acc, recv, count, type, combine);
    }
  }
  if (op == ReduceOp::kAvg) divide_host(recv, count, type, static_cast<int>(size_));
  return {};
}

Result<void> ShmAllReduce::scatter_gather(const void* send, void* recv, std::size_t count,
                                          DataType type, ReduceOp op) {
  const std::size_t elt = size_of(type);
  const std::size_t n = size_;
  const std::size_t me = rank_;
  const std::size_t base = count / n;
  const std::size_t extra = count % n;
  auto block_off = [&](std::size_t b) { return b * base + std::min(b, extra); };
  auto block_len = [&](std::size_t b) { return base + (b < extra ? 1U : 0U); };
  const std::size_t chunk = chunk_ / elt;
  // Elements of block b in the round that starts at element c of every block.
  auto part = [&](std::size_t b, std::size_t c) {
    const std::size_t len = block_len(b);
    return c < len ? std::min(chunk, len - c) : 0;
  };
  const ReduceOp combine = op == ReduceOp::kAvg ? ReduceOp::kSum : op;
  const char* in = static_cast<const char*>(send);
  char* out = static_cast<char*>(recv);
  Flags& own = flags(me);
  const bool streaming = send != recv && count * elt >= kStreamingBytes;
  for (std::size_t c = 0; c < block_len(0); c += chunk) {  // block 0 is the longest
    const std::uint32_t round = ++round_;
    const std::size_t parity = round & 1U;
    for (std::size_t b = 0; b < n; ++b) {
      const std::size_t m = part(b, c);
      if (b != me && m != 0) {
        std::memcpy(in_slot(me, parity, b), in + (block_off(b) + c) * elt, m * elt);
      }
    }
    publish(own.staged, round);

    const std::size_t m = part(me, c);
    char* acc = out_slot(me, parity);
    const char* first = nullptr;
    for (std::size_t p = 0; p < n; ++p) {  // rank order: the same on every rank
      if (p != me && !wait_for(flags(p).staged, round)) {
        return stalled(p, "stage");
      }
      if (m == 0) continue;
      const char* src = p == me ? in + (block_off(me) + c) * elt : in_slot(p, parity, me);
      // acc = x0, then x_p op acc: the first step reads x0 where it is (one pass, no copy).
      if (p == 0) {
        first = src;
      } else {
        reduce_host(src, p == 1 ? first : acc, acc, m, type, combine);
      }
    }
    if (m != 0) {
      if (op == ReduceOp::kAvg) divide_host(acc, m, type, static_cast<int>(n));
      copy_out(out + (block_off(me) + c) * elt, acc, m * elt, streaming);
    }
    publish(own.reduced, round);

    for (std::size_t p = 0; p < n; ++p) {
      if (p == me) continue;
      if (!wait_for(flags(p).reduced, round)) return stalled(p, "reduce");
      const std::size_t mp = part(p, c);
      if (mp != 0) {
        copy_out(out + (block_off(p) + c) * elt, out_slot(p, parity), mp * elt, streaming);
      }
    }
  }
#if defined(__SSE2__)
  if (streaming) _mm_sfence();  // order the non-temporal stores before whatever comes next
#endif
  return {};
}

}  // namespace trainer::collectives::detail
