// SPDX-License-Identifier: Apache-2.0
//
// trainer.hpp's collectives (abi::Communicator) over libtrainer.so, under
// `mpirun -np 2` (or more): created from the environment, every operation once for every element
// type the C ABI supports, with exact checks; errors as trainer::Error values. A plain program
// (not Catch) because every rank runs it: exit 0 when every check passed on this rank, 77 when
// libtrainer has no MPI.
#include "trainer.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

namespace abi = trainer::abi;
using trainer::ErrorCode;

int failures = 0;

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                                   \
    }                                                                               \
  } while (0)

void check_ok(const trainer::Result<void>& result, const char* what) {
  if (!result) {
    std::fprintf(stderr, "%s: %s\n", what, result.error().message.c_str());
    ++failures;
  }
}

/// `value` as an element of type T (for Float16/BFloat16: small integers' exact bit patterns).
template <class T>
T element(int value) {
  if constexpr (std::is_same_v<T, abi::Float16>) {
    // binary16 of 0..8: exponent and mantissa of the small integers used here.
    static const std::uint16_t kBits[] = {0x0000, 0x3C00, 0x4000, 0x4200, 0x4400,
                                          0x4500, 0x4600, 0x4700, 0x4800};
    return abi::Float16{kBits[value]};
  } else if constexpr (std::is_same_v<T, abi::BFloat16>) {
    static const std::uint16_t kBits[] = {0x0000, 0x3F80, 0x4000, 0x4040, 0x4080,
                                          0x40A0, 0x40C0, 0x40E0, 0x4100};
    return abi::BFloat16{kBits[value]};
  } else {
    return static_cast<T>(value);
  }
}

template <class T>
bool same(T a, T b) {
  if constexpr (std::is_same_v<T, abi::Float16> || std::is_same_v<T, abi::BFloat16>) {
    return a.bits == b.bits;
  } else {
    return a == b;
  }
}

/// all_reduce (sum and max, out of place and in place) and broadcast for element type T; every
/// value stays within 0..8 so that the 16-bit floats are exact.
template <class T>
void typed_ops(abi::Communicator& comm, const char* name) {
  const int rank = comm.rank();
  const int n = comm.size();
  std::vector<T> send{element<T>(1), element<T>(rank % 2)};
  std::vector<T> recv(2);
  check_ok(comm.all_reduce(send.data(), recv.data(), 2, abi::ReduceOp::kSum), name);
  int odd = 0;
  for (int r = 0; r < n; ++r) odd += r % 2;
  if (!same(recv[0], element<T>(n)) || !same(recv[1], element<T>(odd))) {
    std::fprintf(stderr, "all_reduce sum of %s is wrong\n", name);
    ++failures;
  }
  std::vector<T> inplace{element<T>(rank)};
  check_ok(comm.all_reduce(inplace.data(), 1, abi::ReduceOp::kMax), name);
  if (!same(inplace[0], element<T>(n - 1))) {
    std::fprintf(stderr, "in-place all_reduce max of %s is wrong\n", name);
    ++failures;
  }
  std::vector<T> data{element<T>(rank == 0 ? 7 : 0)};
  check_ok(comm.broadcast(data.data(), 1, 0), name);
  if (!same(data[0], element<T>(7))) {
    std::fprintf(stderr, "broadcast of %s is wrong\n", name);
    ++failures;
  }
}

}  // namespace

int main() {
  auto created = abi::Communicator::from_env();
  if (!created) {
    std::fprintf(stderr, "Communicator::from_env: %s\n", created.error().message.c_str());
    return abi::has_feature(TRAINER_FEATURE_MPI) ? 1 : 77;
  }
  abi::Communicator comm = std::move(*created);
  const int rank = comm.rank();
  const int n = comm.size();
  CHECK(comm.backend_name() == "mpi");
  CHECK(n >= 2 && rank >= 0 && rank < n);
  CHECK(comm.local_rank() >= 0 && comm.local_rank() < comm.local_size());

  typed_ops<std::int8_t>(comm, "int8");
  typed_ops<std::uint8_t>(comm, "uint8");
  typed_ops<std::int32_t>(comm, "int32");
  typed_ops<std::int64_t>(comm, "int64");
  typed_ops<abi::Float16>(comm, "float16");
  typed_ops<abi::BFloat16>(comm, "bfloat16");
  typed_ops<float>(comm, "float32");
  typed_ops<double>(comm, "float64");

  // Average, out-of-place broadcast, all-gather, reduce-scatter.
  std::vector<float> avg{static_cast<float>(rank * 2), 1.0f};
  check_ok(comm.all_reduce(avg.data(), avg.data(), 2, abi::ReduceOp::kAvg), "avg");
  CHECK(avg[0] == static_cast<float>(n - 1) && avg[1] == 1.0f);

  std::vector<std::int32_t> from(3, rank == n - 1 ? 40 : -1);
  std::vector<std::int32_t> to(3, 0);
  check_ok(comm.broadcast(from.data(), to.data(), 3, n - 1), "broadcast");
  CHECK(to == std::vector<std::int32_t>(3, 40));

  const std::int64_t mine = 100 + rank;
  std::vector<std::int64_t> gathered(static_cast<std::size_t>(n));
  check_ok(comm.all_gather(&mine, gathered.data(), 1), "all_gather");
  for (int r = 0; r < n; ++r) CHECK(gathered[static_cast<std::size_t>(r)] == 100 + r);

  std::vector<double> blocks(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) blocks[static_cast<std::size_t>(r)] = r * 10 + rank;
  double block = 0;
  check_ok(comm.reduce_scatter(blocks.data(), &block, 1, abi::ReduceOp::kMax), "reduce_scatter");
  CHECK(block == rank * 10 + n - 1);

  // Point-to-point between ranks 0 and 1, typed and untyped.
  if (rank == 0) {
    const std::int64_t out[2] = {11, 22};
    check_ok(comm.send(out, 2, 1), "send");
    double back = 0;
    check_ok(comm.recv(&back, 1, abi::DataType::kFloat64, 1), "recv untyped");
    CHECK(back == 2.5);
  } else if (rank == 1) {
    std::int64_t in[2] = {0, 0};
    check_ok(comm.recv(in, 2, 0), "recv");
    CHECK(in[0] == 11 && in[1] == 22);
    const double reply = 2.5;
    check_ok(comm.send(&reply, 1, abi::DataType::kFloat64, 0), "send untyped");
  }
  check_ok(comm.barrier(), "barrier");
  check_ok(comm.synchronize(), "synchronize");

  // Errors: a root out of range, a data type the C ABI does not know, both on every rank.
  std::int32_t one = 1;
  auto bad_root = comm.broadcast(&one, 1, n);
  CHECK(!bad_root && bad_root.error().code == ErrorCode::kInvalidArgument);
  auto bad_type =
      comm.all_reduce(&one, &one, 1, static_cast<abi::DataType>(99), abi::ReduceOp::kSum);
  CHECK(!bad_type && bad_type.error().code == ErrorCode::kInvalidArgument &&
        bad_type.error().message.find("data type") != std::string::npos);

  // A second communicator over MPI_COMM_WORLD, next to the first.
  {
    auto world = abi::Communicator::create_mpi();
    CHECK(world.has_value());
    if (world) {
      CHECK(world->size() == n && world->rank() == rank);
      std::int32_t count = 1;
      check_ok(world->all_reduce(&count, 1, abi::ReduceOp::kSum), "second communicator");
      CHECK(count == n);
    }
  }
  // NCCL needs a GPU: without one (or without NCCL) this is kUnsupported. One rank alone (a
  // group of one), so that the ranks do not compete for the store's port.
  if (rank == 0) {
    abi::CommOptions options;
    options.timeout = std::chrono::milliseconds(2000);
    auto nccl = abi::Communicator::create_nccl("127.0.0.1", 1, 0, 1, 0, 1, options);
    CHECK(nccl.has_value() || nccl.error().code == ErrorCode::kUnsupported);
  }

  if (rank == 0) std::printf("cpp comm: %d ranks, %d failures\n", n, failures);
  return failures == 0 ? 0 : 1;
}
