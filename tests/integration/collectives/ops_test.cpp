// SPDX-License-Identifier: Apache-2.0
// Every collective x data type x {out-of-place, in-place} x sizes {0, 1, 7, 1024, 1M+3},
// checked exactly with small-integer data, on the MPI backend under `mpirun -np N`.
// Also: argument errors, point-to-point, and MPI lifetime (--caller-inits-mpi: the program owns
// MPI_Init/MPI_Finalize and the library must leave them alone).
#include "mpi_checks.hpp"
#include "trainer/collectives.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace tc = trainer::collectives;
using tc::DataType;
using tc::ReduceOp;

namespace {

using tc::mpi_checks::die;
using tc::mpi_checks::expect;
using tc::mpi_checks::g_checks;
using tc::mpi_checks::g_rank;

template <class R>
void expect_ok(const R& r, const std::string& what) {
  if (!r) die(what + ": " + r.error().message);
  ++g_checks;
}

template <class T>
T make(double v) {
  if constexpr (std::is_same_v<T, tc::Float16> || std::is_same_v<T, tc::BFloat16>) {
    return T::from_float(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
constexpr bool kSigned =
    std::is_signed_v<T> || std::is_same_v<T, tc::Float16> || std::is_same_v<T, tc::BFloat16>;

// Small integers: exact in every type, sums and products stay far from overflow.
template <class T>
double value(ReduceOp op, int rank, std::size_t i) {
  const auto k = static_cast<double>((i * 3 + static_cast<std::size_t>(rank) * 5) % 11);
  if (op == ReduceOp::kProd)
    return 1.0 + static_cast<double>((i + static_cast<std::size_t>(rank)) % 2);
  return kSigned<T> ? k - 5.0 : k;
}

template <class T>
T expected_reduce(ReduceOp op, int n, std::size_t i) {
  double acc = value<T>(op, 0, i);
  for (int r = 1; r < n; ++r) {
    const double v = value<T>(op, r, i);
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg: acc += v; break;
      case ReduceOp::kProd: acc *= v; break;
      case ReduceOp::kMin: acc = v < acc ? v : acc; break;
      case ReduceOp::kMax: acc = v > acc ? v : acc; break;
    }
  }
  if (op != ReduceOp::kAvg) return make<T>(acc);
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<std::int64_t>(acc) / n);  // truncation toward zero
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(static_cast<T>(acc) / static_cast<T>(n));
  } else {
    return T::from_float(static_cast<float>(acc) / static_cast<float>(n));
  }
}

template <class T>
bool same(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// value() and expected_reduce() repeat with period 22 in the index (11 and 2 divide it), so the
// large sizes fill and check from small tables: the test spends its time in MPI, not in here.
constexpr std::size_t kPeriod = 22;

template <class T>
struct Table {
  T v[kPeriod];
  const T& operator[](std::size_t i) const { return v[i % kPeriod]; }
};

template <class T>
Table<T> inputs(ReduceOp op, int rank) {
  Table<T> t;
  for (std::size_t i = 0; i < kPeriod; ++i) t.v[i] = make<T>(value<T>(op, rank, i));
  return t;
}

template <class T>
Table<T> expected(ReduceOp op, int n) {
  Table<T> t;
  for (std::size_t i = 0; i < kPeriod; ++i) t.v[i] = expected_reduce<T>(op, n, i);
  return t;
}

template <class T>
void fill(T* p, std::size_t count, const Table<T>& t, std::size_t offset = 0) {
  for (std::size_t i = 0; i < count; ++i) p[i] = t[offset + i];
}

// Index of the first element of p[0..count) that differs from t[offset + i]; count if none.
template <class T>
std::size_t first_wrong(const T* p, std::size_t count, const Table<T>& t, std::size_t offset = 0) {
  for (std::size_t i = 0; i < count; ++i) {
    if (!same(p[i], t[offset + i])) return i;
  }
  return count;
}

// Two persistent buffers reused by every check: fresh multi-MiB vectors would cost a page
// fault per 4 KiB on every call.
std::vector<std::max_align_t> g_buf[2];

template <class T>
T* buffer(int which, std::size_t count) {
  std::vector<std::max_align_t>& v = g_buf[which];
  const std::size_t words =
      (count * sizeof(T) + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
  if (v.size() < words) v.resize(words);
  return reinterpret_cast<T*>(v.data());
}

template <class T>
std::string label(const char* op, std::size_t count, bool in_place) {
  return std::string(op) + " " + tc::to_string(tc::DataTypeOf<T>::value) +
         " count=" + std::to_string(count) + (in_place ? " in-place" : " out-of-place");
}

template <class T>
void check_all_reduce(tc::Communicator& comm, ReduceOp op, std::size_t count, bool in_place) {
  T* send = buffer<T>(0, count);
  T* recv = buffer<T>(1, count);
  fill(send, count, inputs<T>(op, comm.rank()));
  T* out = in_place ? send : recv;
  const auto what = label<T>("all_reduce", count, in_place) + " " + tc::to_string(op);
  expect_ok(comm.all_reduce(send, out, count, op), what);
  const std::size_t bad = first_wrong(out, count, expected<T>(op, comm.size()));
  if (bad != count) die(what + " wrong at " + std::to_string(bad));
  ++g_checks;
}

template <class T>
void check_broadcast(tc::Communicator& comm, int root, std::size_t count, bool in_place) {
  T* send = buffer<T>(0, count);
  T* recv = buffer<T>(1, count);
  fill(send, count, inputs<T>(ReduceOp::kSum, comm.rank()));
  std::fill(recv, recv + count, make<T>(99));
  T* out = in_place ? send : recv;
  const auto what = label<T>("broadcast", count, in_place) + " root=" + std::to_string(root);
  expect_ok(comm.broadcast(send, out, count, root), what);
  const std::size_t bad = first_wrong(out, count, inputs<T>(ReduceOp::kSum, root));
  if (bad != count) die(what + " wrong at " + std::to_string(bad));
  ++g_checks;
}

template <class T>
void check_all_gather(tc::Communicator& comm, std::size_t count, bool in_place) {
  const int n = comm.size();
  const std::size_t total = count * static_cast<std::size_t>(n);
  T* send = buffer<T>(0, count);
  T* recv = buffer<T>(1, total);
  std::fill(recv, recv + total, make<T>(99));
  T* mine = recv + static_cast<std::size_t>(comm.rank()) * count;
  T* src = in_place ? mine : send;
  fill(src, count, inputs<T>(ReduceOp::kSum, comm.rank()));
  const auto what = label<T>("all_gather", count, in_place);
  expect_ok(comm.all_gather(src, recv, count), what);
  for (int r = 0; r < n; ++r) {
    const T* block = recv + static_cast<std::size_t>(r) * count;
    const std::size_t bad = first_wrong(block, count, inputs<T>(ReduceOp::kSum, r));
    if (bad != count) {
      die(what + " wrong at block " + std::to_string(r) + " index " + std::to_string(bad));
    }
  }
  ++g_checks;
}

template <class T>
void check_reduce_scatter(tc::Communicator& comm, ReduceOp op, std::size_t count, bool in_place) {
  const int n = comm.size();
  const int rank = comm.rank();
  const std::size_t total = count * static_cast<std::size_t>(n);
  T* send = buffer<T>(0, total);
  T* recv = buffer<T>(1, count);
  fill(send, total, inputs<T>(op, rank));
  const std::size_t base = static_cast<std::size_t>(rank) * count;
  T* out = in_place ? send + base : recv;
  const auto what = label<T>("reduce_scatter", count, in_place) + " " + tc::to_string(op);
  expect_ok(comm.reduce_scatter(send, out, count, op), what);
  const std::size_t bad = first_wrong(out, count, expected<T>(op, n), base);
  if (bad != count) die(what + " wrong at " + std::to_string(bad));
  ++g_checks;
}

template <class T>
void check_type(tc::Communicator& comm, const std::vector<std::size_t>& sizes) {
  const ReduceOp ops[] = {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax,
                          ReduceOp::kAvg};
  const bool verbose = std::getenv("TRAINER_TEST_VERBOSE") != nullptr;
  for (const std::size_t count : sizes) {
    const auto t0 = std::chrono::steady_clock::now();
    for (const bool in_place : {false, true}) {
      for (const ReduceOp op : ops) check_all_reduce<T>(comm, op, count, in_place);
      check_broadcast<T>(comm, static_cast<int>(count % static_cast<std::size_t>(comm.size())),
                         count, in_place);
      check_broadcast<T>(comm, comm.size() - 1, count, in_place);
      check_all_gather<T>(comm, count, in_place);
      for (const ReduceOp op : ops) check_reduce_scatter<T>(comm, op, count, in_place);
    }
    if (verbose && comm.rank() == 0) {
      std::printf("  %s count=%zu: %.3f s\n", tc::to_string(tc::DataTypeOf<T>::value), count,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  }
}

void check_point_to_point(tc::Communicator& comm) {
  const int n = comm.size();
  const int rank = comm.rank();
  // Rank 0 sends a distinct message to every rank; each answers with its own.
  for (int peer = 1; peer < n; ++peer) {
    std::vector<std::int32_t> msg(1000 + static_cast<std::size_t>(peer));
    if (rank == 0) {
      for (std::size_t i = 0; i < msg.size(); ++i) msg[i] = static_cast<std::int32_t>(i) * peer;
      expect_ok(comm.send(msg.data(), msg.size(), DataType::kInt32, peer), "send");
      std::vector<double> back(7);
      expect_ok(comm.recv(back.data(), back.size(), DataType::kFloat64, peer), "recv");
      for (std::size_t i = 0; i < back.size(); ++i) {
        expect(back[i] == static_cast<double>(peer) + 0.5 * static_cast<double>(i), "recv data");
      }
    } else if (rank == peer) {
      expect_ok(comm.recv(msg.data(), msg.size(), DataType::kInt32, 0), "recv");
      for (std::size_t i = 0; i < msg.size(); ++i) {
        expect(msg[i] == static_cast<std::int32_t>(i) * peer, "recv data");
      }
      std::vector<double> back(7);
      for (std::size_t i = 0; i < back.size(); ++i) {
        back[i] = static_cast<double>(peer) + 0.5 * static_cast<double>(i);
      }
      expect_ok(comm.send(back.data(), back.size(), DataType::kFloat64, 0), "send");
    }
  }
  // A shorter message than the receiver expects is an error, not silent garbage.
  if (n >= 2) {
    std::int64_t buf[5] = {1, 2, 3, 4, 5};
    if (rank == 1) expect_ok(comm.send(buf, 3, DataType::kInt64, 0), "short send");
    if (rank == 0) {
      auto r = comm.recv(buf, 5, DataType::kInt64, 1);
      expect(!r && r.error().code == trainer::ErrorCode::kInvalid &&
                 r.error().message.find("got 3 elements, expected 5") != std::string::npos,
             "short recv must fail with kInvalid");
    }
  }
}

void check_errors(tc::Communicator& comm) {
  using trainer::ErrorCode;
  float x = 1;
  auto r = comm.all_reduce(nullptr, &x, 1, DataType::kFloat32, ReduceOp::kSum);
  expect(!r && r.error().code == ErrorCode::kInvalidArgument, "null buffer rejected");
  r = comm.all_reduce(&x, &x, 1, static_cast<DataType>(42), ReduceOp::kSum);
  expect(!r && r.error().code == ErrorCode::kInvalidArgument, "bad dtype rejected");
  r = comm.all_reduce(&x, &x, 1, DataType::kFloat32, static_cast<ReduceOp>(9));
  expect(!r && r.error().code == ErrorCode::kInvalidArgument, "bad op rejected");
  r = comm.broadcast(&x, &x, 1, DataType::kFloat32, comm.size());
  expect(!r && r.error().message.find("root") != std::string::npos, "root out of range");
  r = comm.send(&x, 1, DataType::kFloat32, -1);
  expect(!r && r.error().code == ErrorCode::kInvalidArgument, "peer out of range");
  // Beyond MPI's int count: refused before any memory is touched, on every rank alike.
  r = comm.all_reduce(&x, &x, std::size_t{1} << 31U, DataType::kFloat32, ReduceOp::kSum);
  expect(!r && r.error().code == ErrorCode::kLimit, "count > INT_MAX rejected");
  // Zero counts with null pointers are fine.
  expect_ok(comm.all_reduce(nullptr, nullptr, 0, DataType::kInt8, ReduceOp::kSum), "count 0");
  // NCCL needs CUDA memory: host memory + NCCL is refused at creation.
  tc::CommOptions bad;
  bad.backend = tc::Backend::kNccl;
  auto c = tc::Communicator::create_mpi(bad);
  expect(!c && c.error().code == ErrorCode::kInvalidArgument, "nccl + host memory refused");
  // Moved-from communicators answer errors.
  tc::Communicator moved = std::move(comm);
  r = comm.barrier();  // NOLINT(bugprone-use-after-move): that is the point
  expect(!r && !comm.valid(), "moved-from communicator");
  comm = std::move(moved);
}

}  // namespace

int main(int argc, char** argv) {
  const bool caller_inits = argc > 1 && std::string(argv[1]) == "--caller-inits-mpi";
  if (caller_inits) MPI_Init(&argc, &argv);

  const auto t0 = std::chrono::steady_clock::now();
  auto made = tc::Communicator::init_from_env();
  if (!made) {
    std::fprintf(stderr, "init_from_env: %s\n", made.error().message.c_str());
    return 1;
  }
  tc::Communicator comm = std::move(*made);
  g_rank = comm.rank();
  const char* env_rank = std::getenv("OMPI_COMM_WORLD_RANK");
  const char* env_size = std::getenv("OMPI_COMM_WORLD_SIZE");
  expect(env_rank != nullptr && comm.rank() == std::atoi(env_rank), "rank matches mpirun");
  expect(env_size != nullptr && comm.size() == std::atoi(env_size), "size matches mpirun");
  expect(std::string(comm.backend_name()) == "mpi", "backend is mpi");
  expect(comm.local_size() >= 1 && comm.local_rank() < comm.local_size(), "local rank/size");

  const std::vector<std::size_t> sizes = {0, 1, 7, 1024, (std::size_t{1} << 20U) + 3};
  check_type<std::int8_t>(comm, sizes);
  check_type<std::uint8_t>(comm, sizes);
  check_type<std::int32_t>(comm, sizes);
  check_type<std::int64_t>(comm, sizes);
  check_type<tc::Float16>(comm, sizes);
  check_type<tc::BFloat16>(comm, sizes);
  check_type<float>(comm, sizes);
  check_type<double>(comm, sizes);
  check_point_to_point(comm);
  check_errors(comm);
  expect_ok(comm.barrier(), "barrier");
  expect_ok(comm.synchronize(), "synchronize");

  // A second communicator in the same process reuses the initialised MPI.
  {
    auto second = tc::Communicator::create_mpi();
    expect_ok(second, "second communicator");
    int one = 1;
    int sum = 0;
    expect_ok(second->all_reduce(&one, &sum, 1, ReduceOp::kSum), "second all_reduce");
    expect(sum == comm.size(), "second communicator sums");
  }

  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int we_see_initialized = 0;
  MPI_Initialized(&we_see_initialized);
  expect(we_see_initialized == 1, "MPI initialised while communicators live");
  if (comm.rank() == 0) {
    std::printf("collectives ops: %ld checks passed on rank 0 of %d (%.2f s)%s\n", g_checks,
                comm.size(), secs, caller_inits ? " [caller owns MPI]" : "");
  }
  if (caller_inits) {
    { tc::Communicator drop = std::move(comm); }  // communicators go before MPI_Finalize
    int finalized = 0;
    MPI_Finalized(&finalized);
    expect(finalized == 0, "library must not finalize MPI the caller initialised");
    MPI_Finalize();
  }
  return 0;
}
