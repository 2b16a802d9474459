// SPDX-License-Identifier: Apache-2.0
// The shared-memory all_reduce (ranks on one node: every size takes it), under `mpirun -np N`
// (TRAINER_MPI_SHM_CHUNK sets the bytes per block and round, 256 KiB by default). Random data,
// where the order of a float sum shows in the result: every rank must get exactly the left fold
// over ranks 0, 1, ..., n - 1 (each step rounded to the type, as the backend combines), bit for
// bit, in place and out of place, for every type and reduction, at counts around the chunk, rank
// and one-exchange boundaries; the ranks' results must hash alike; out of place must leave
// `send` alone and write nothing past `count`. Then the waits: a peer that arrives late (asleep
// for longer than the spin) still gives the right result, and a rank that calls all_reduce
// alone gets kTimeout after the communicator's timeout, and the communicator's all_reduce stays
// refused afterwards.
#include "mpi_checks.hpp"
#include "trainer/collectives.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace tc = trainer::collectives;
using tc::ReduceOp;

namespace {

using tc::mpi_checks::die;
using tc::mpi_checks::expect;
using tc::mpi_checks::g_checks;
using tc::mpi_checks::g_rank;

std::uint64_t mix(std::uint64_t x) {  // splitmix64: every rank can regenerate every input
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27U)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31U);
}

template <class T>
constexpr bool kHalf = std::is_same_v<T, tc::Float16> || std::is_same_v<T, tc::BFloat16>;

// Input of `rank` at index i. Floats: full-mantissa values (prod: near 1, so no overflow);
// integers: small enough that no sum or product of up to 4 ranks overflows.
template <class T>
T input(ReduceOp op, int rank, std::size_t i, unsigned salt) {
  const std::uint64_t h = mix((static_cast<std::uint64_t>(rank) << 40U) ^ (i << 4U) ^ salt);
  const double u = static_cast<double>(h >> 11U) * 0x1.0p-53;  // [0, 1)
  if constexpr (std::is_integral_v<T>) {
    if (op == ReduceOp::kProd) return static_cast<T>(1 + (h & 1U));
    const auto v = static_cast<int>(h % 7U);
    return static_cast<T>(std::is_signed_v<T> ? v - 3 : v);
  } else {
    const double v = op == ReduceOp::kProd ? 0.5 + u : 4.0 * u - 2.0;
    if constexpr (kHalf<T>) {
      return T::from_float(static_cast<float>(v));
    } else {
      return static_cast<T>(v);
    }
  }
}

// One step of the fold, `in` combined into `acc`, rounded to T like the backend does.
template <class T>
T combine(ReduceOp op, T in, T acc) {
  if constexpr (kHalf<T>) {
    return T::from_float(combine<float>(op, in.to_float(), acc.to_float()));
  } else {
    switch (op) {
      case ReduceOp::kProd: return static_cast<T>(in * acc);
      case ReduceOp::kMin: return in < acc ? in : acc;
      case ReduceOp::kMax: return acc < in ? in : acc;
      case ReduceOp::kSum:
      case ReduceOp::kAvg: break;
    }
    return static_cast<T>(in + acc);
  }
}

template <class T>
T divide(T v, int n) {
  if constexpr (kHalf<T>) {
    return T::from_float(v.to_float() / static_cast<float>(n));
  } else {
    return static_cast<T>(v / static_cast<T>(n));
  }
}

std::uint64_t fnv(const void* p, std::size_t bytes) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ b[i]) * 0x100000001B3ULL;
  return h;
}

// Inputs repeat with this period (a prime: no chunk or block boundary is a multiple of it), so
// that multi-MiB buffers are filled and checked from small tables; the data within a period
// are random, so a sum in another order, or an element moved to another index (by anything
// but a multiple of kPeriod), still shows.
constexpr std::size_t kPeriod = 4093;

template <class T>
struct Case {
  std::vector<T> mine;  // this rank's inputs, one period
  std::vector<T> want;  // the rank-order fold, one period
};

template <class T>
Case<T> make_case(ReduceOp op, int rank, int n, unsigned salt) {
  Case<T> c;
  c.mine.resize(kPeriod);
  c.want.resize(kPeriod);
  for (std::size_t i = 0; i < kPeriod; ++i) {
    c.mine[i] = input<T>(op, rank, i, salt);
    T acc = input<T>(op, 0, i, salt);
    for (int r = 1; r < n; ++r) acc = combine(op, input<T>(op, r, i, salt), acc);
    c.want[i] = op == ReduceOp::kAvg ? divide(acc, n) : acc;
  }
  return c;
}

template <class T>
void check(tc::Communicator& comm, ReduceOp op, std::size_t count, bool in_place, unsigned salt) {
  const int n = comm.size();
  const Case<T> c = make_case<T>(op, comm.rank(), n, salt);
  // One guard element past the end of each buffer: all_reduce must not write there.
  std::vector<T> send(count + 1);
  std::vector<T> recv(count + 1);
  for (std::size_t i = 0; i < count; ++i) send[i] = c.mine[i % kPeriod];
  const T guard = input<T>(ReduceOp::kSum, 99, 0, salt);
  send[count] = guard;
  recv[count] = guard;
  T* out = in_place ? send.data() : recv.data();
  const std::string what = std::string("all_reduce ") + tc::to_string(tc::DataTypeOf<T>::value) +
                           " " + tc::to_string(op) + " count=" + std::to_string(count) +
                           (in_place ? " in-place" : " out-of-place");
  auto ok = comm.all_reduce(send.data(), out, count, op);
  if (!ok) die(what + ": " + ok.error().message);
  for (std::size_t i = 0; i < count; ++i) {
    if (std::memcmp(&out[i], &c.want[i % kPeriod], sizeof(T)) != 0) {
      die(what + ": not the rank-order fold at index " + std::to_string(i));
    }
  }
  ++g_checks;
  expect(std::memcmp(&out[count], &guard, sizeof(T)) == 0, what + ": wrote past the end");
  if (!in_place) {
    for (std::size_t i = 0; i < count; ++i) {
      if (std::memcmp(&send[i], &c.mine[i % kPeriod], sizeof(T)) != 0) {
        die(what + ": send changed at index " + std::to_string(i));
      }
    }
    ++g_checks;
  }
  // The same bits on every rank.
  const std::uint64_t mine = fnv(out, count * sizeof(T));
  std::vector<std::uint64_t> all(static_cast<std::size_t>(n));
  MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  for (const std::uint64_t h : all) expect(h == mine, what + ": ranks differ");
}

std::size_t chunk_bytes() {
  const char* v = std::getenv("TRAINER_MPI_SHM_CHUNK");
  return v != nullptr ? std::strtoull(v, nullptr, 10) / 64 * 64 : std::size_t{256} << 10U;
}

// `large`: also a 9 MiB buffer (non-temporal stores out of place; the same code for every type).
template <class T>
void check_type(tc::Communicator& comm, bool large = false) {
  const auto n = static_cast<std::size_t>(comm.size());
  const std::size_t per = chunk_bytes() / sizeof(T);  // elements of a block per round
  const std::size_t e = sizeof(T);
  // Fewer elements than ranks (empty blocks), uneven blocks, either side of the one-exchange
  // path's limits (1 KiB, 16 KiB with more ranks than cores, capped at n chunks), one round
  // exactly, one element into a second round, a last round where only block 0 has an element
  // left, and 1 MiB.
  std::vector<std::size_t> counts = {1,
                                     n - 1,
                                     n + 1,
                                     1024 / e,
                                     1024 / e + 1,
                                     16384 / e,
                                     16384 / e + 1,
                                     per * n - 1,
                                     per * n,
                                     per * n + 1,
                                     2 * per * n + n - 1,
                                     5 * per * n + 1,
                                     (std::size_t{1} << 20U) / e + 5};
  if (large) counts.push_back((std::size_t{9} << 20U) / e + 3);
  unsigned salt = 0;
  for (const std::size_t count : counts) {
    for (const ReduceOp op :
         {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kAvg}) {
      for (const bool in_place : {false, true}) check<T>(comm, op, count, in_place, ++salt);
    }
  }
}

// A peer that sleeps before it arrives (longer than any spin) must still be waited for; and a
// rank alone in all_reduce must not wait forever: kTimeout after the communicator's timeout,
// and the communicator refuses all_reduce from then on (its ranks are out of step).
void check_waits(tc::Communicator& comm) {
  const int n = comm.size();
  for (const std::size_t count : {std::size_t{16}, std::size_t{1} << 20U}) {
    std::vector<float> buf(count, 1.0F);
    if (comm.rank() == n - 1) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto r = comm.all_reduce(buf.data(), buf.data(), count, ReduceOp::kSum);
    expect(bool(r), "late peer, count " + std::to_string(count) + ": " +
                        (r ? std::string() : r.error().message));
    bool all = true;
    for (const float v : buf) all = all && v == static_cast<float>(n);
    expect(all, "late peer: sum, count " + std::to_string(count));
  }
  tc::CommOptions options;
  options.timeout = std::chrono::milliseconds(300);
  auto made = tc::Communicator::create_mpi(options);
  if (!made) die("create_mpi: " + made.error().message);
  std::vector<float> buf(1024, 1.0F);
  if (made->rank() == 0) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = made->all_reduce(buf.data(), buf.data(), buf.size(), ReduceOp::kSum);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    expect(!r && r.error().code == trainer::ErrorCode::kTimeout, "lone all_reduce times out");
    expect(r.error().message.find("rank 1 did not stage within 300 ms") != std::string::npos,
           "timeout names the rank: " + r.error().message);
    expect(s >= 0.3 && s < 10.0, "timeout after about 300 ms, took " + std::to_string(s) + " s");
    r = made->all_reduce(buf.data(), buf.data(), buf.size(), ReduceOp::kSum);
    expect(!r && r.error().code == trainer::ErrorCode::kTimeout, "refused after a timeout");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    auto made = tc::Communicator::create_mpi();
    if (!made) die("create_mpi: " + made.error().message);
    tc::Communicator& comm = *made;
    g_rank = comm.rank();
    expect(comm.local_size() == comm.size(), "all ranks on one node");
    check_type<float>(comm, true);
    check_type<double>(comm);
    check_type<tc::Float16>(comm);
    check_type<tc::BFloat16>(comm);
    check_type<std::int8_t>(comm);
    check_type<std::uint8_t>(comm);
    check_type<std::int32_t>(comm);
    check_type<std::int64_t>(comm);
    check_waits(comm);
    if (comm.rank() == 0) {
      std::printf("shm all_reduce: %ld checks passed on rank 0 of %d (chunk %zu bytes)\n", g_checks,
                  comm.size(), chunk_bytes());
    }
  }
  MPI_Finalize();
  return 0;
}
