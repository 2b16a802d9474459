// SPDX-License-Identifier: Apache-2.0
// GPU tests (CTest label `gpu`). Without a usable CUDA device they print "SKIPPED: no GPU" and
// exit 77 (the test's SKIP_RETURN_CODE), so CTest reports them as skipped, not passed.
//   gpu_test nccl      : NCCL communicator of one rank (a single-GPU machine cannot hold two
//                        NCCL ranks): every op x dtype on device buffers, checked on the host;
//                        then NCCL init of a 2-rank world where the peer never comes: kTimeout
//                        after the configured timeout, the communicator aborted.
//   gpu_test mpi-cuda  : under mpirun, the MPI backend with CUDA buffers (CUDA-aware MPI or
//                        pinned staging).
#include "collectives/comm_impl.hpp"

#include <cuda_runtime_api.h>
#if defined(TRAINER_HAVE_MPI)
#include <mpi.h>
#endif

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace tc = trainer::collectives;
using tc::DataType;
using tc::ReduceOp;

namespace {

int g_failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    ++g_failures;
    std::fprintf(stderr, "FAIL: %s\n", what.c_str());
  }
}

template <class R>
bool ok_or_report(const R& r, const std::string& what) {
  if (!r) {
    ++g_failures;
    std::fprintf(stderr, "FAIL: %s: %s\n", what.c_str(), r.error().message.c_str());
    return false;
  }
  return true;
}

// Small integers (0..10) as bytes of the given type.
std::vector<unsigned char> host_values(DataType t, std::size_t count, int rank) {
  const std::size_t e = tc::size_of(t);
  std::vector<unsigned char> out(count * e);
  for (std::size_t i = 0; i < count; ++i) {
    const auto v = static_cast<double>((i * 3 + static_cast<std::size_t>(rank) * 5) % 11);
    unsigned char* p = out.data() + i * e;
    switch (t) {
      case DataType::kInt8: {
        auto x = static_cast<std::int8_t>(v);
        std::memcpy(p, &x, e);
        break;
      }
      case DataType::kUInt8: {
        auto x = static_cast<std::uint8_t>(v);
        std::memcpy(p, &x, e);
        break;
      }
      case DataType::kInt32: {
        auto x = static_cast<std::int32_t>(v);
        std::memcpy(p, &x, e);
        break;
      }
      case DataType::kInt64: {
        auto x = static_cast<std::int64_t>(v);
        std::memcpy(p, &x, e);
        break;
      }
      case DataType::kFloat16: {
        auto x = tc::Float16::from_float(static_cast<float>(v));
        std::memcpy(p, &x, e);
        break;
      }
      case DataType::kBFloat16: {
        auto x = tc::BFloat16::from_float(static_cast<float>(v));
        std::memcpy(p, &x, e);
        break;
      }
      case DataType::kFloat32: {
        auto x = static_cast<float>(v);
        std::memcpy(p, &x, e);
        break;
      }
      case DataType::kFloat64: {
        std::memcpy(p, &v, e);
        break;
      }
    }
  }
  return out;
}

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(std::size_t bytes) {
    if (cudaMalloc(&p, bytes == 0 ? 1 : bytes) != cudaSuccess) p = nullptr;
  }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// With one rank every operation returns its input (avg divides by 1); with `n` MPI ranks
// all_reduce sum is checked against the sum of host_values.
void check_ops_one_rank(tc::Communicator& comm) {
  const DataType types[] = {DataType::kInt8,    DataType::kUInt8,   DataType::kInt32,
                            DataType::kInt64,   DataType::kFloat16, DataType::kBFloat16,
                            DataType::kFloat32, DataType::kFloat64};
  const ReduceOp ops[] = {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax,
                          ReduceOp::kAvg};
  for (const DataType t : types) {
    for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7},
                                    std::size_t{1024}, (std::size_t{1} << 20U) + 3}) {
      const auto in = host_values(t, count, comm.rank());
      const std::size_t bytes = in.size();
      DeviceBuffer a(bytes), b(bytes);
      std::vector<unsigned char> out(bytes);
      const std::string what = std::string(tc::to_string(t)) + " count=" + std::to_string(count);
      auto run = [&](const char* name, auto&& op, bool in_place) {
        cudaMemcpy(a.p, in.data(), bytes, cudaMemcpyHostToDevice);
        cudaMemset(b.p, 0x7f, bytes == 0 ? 1 : bytes);
        if (!ok_or_report(op(a.p, in_place ? a.p : b.p), what + " " + name)) return;
        if (!ok_or_report(comm.synchronize(), what + " synchronize")) return;
        cudaMemcpy(out.data(), in_place ? a.p : b.p, bytes, cudaMemcpyDeviceToHost);
        expect(out == in, what + " " + name + (in_place ? " in-place" : " out-of-place"));
      };
      for (const bool ip : {false, true}) {
        for (const ReduceOp op : ops) {
          run(
              tc::to_string(op),
              [&](void* s, void* r) { return comm.all_reduce(s, r, count, t, op); }, ip);
          run(
              "reduce_scatter",
              [&](void* s, void* r) { return comm.reduce_scatter(s, r, count, t, op); }, ip);
        }
        run(
            "broadcast", [&](void* s, void* r) { return comm.broadcast(s, r, count, t, 0); }, ip);
        run(
            "all_gather", [&](void* s, void* r) { return comm.all_gather(s, r, count, t); }, ip);
      }
    }
  }
  ok_or_report(comm.barrier(), "barrier");
}

int test_nccl() {
  tc::RendezvousOptions solo;
  solo.rank = 0;
  solo.size = 1;
  tc::CommOptions o;
  o.memory = tc::MemoryKind::kCuda;
  o.timeout = std::chrono::seconds(60);
  const auto t0 = std::chrono::steady_clock::now();
  auto comm = tc::Communicator::create_nccl(solo, 0, 1, o);
  const double init_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!ok_or_report(comm, "create_nccl (1 rank)")) return 1;
  std::printf("NCCL communicator of 1 rank: init %.1f ms, backend %s\n", init_ms,
              comm->backend_name());
  check_ops_one_rank(*comm);

  // Peer never joins: the non-blocking init must give up after the timeout and abort.
  std::string id(tc::detail::kNcclIdBytes, '\0');
  if (!ok_or_report(tc::detail::nccl_unique_id(id.data()), "ncclGetUniqueId")) return 1;
  tc::CommOptions quick = o;
  quick.timeout = std::chrono::milliseconds(2000);
  const auto t1 = std::chrono::steady_clock::now();
  {
    auto lonely = tc::detail::make_nccl_comm(id.data(), 0, 2, 0, 1, quick);
    expect(!lonely && lonely.error().code == trainer::ErrorCode::kTimeout,
           "NCCL init without its peer times out");
    if (!lonely) std::printf("lonely init: %s\n", lonely.error().message.c_str());
  }
  const double abort_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
  std::printf("NCCL init without peer: error + abort after %.1f ms (timeout 2000 ms)\n", abort_ms);
  expect(abort_ms < 2000 + 1000, "abort within timeout + 1 s");
  return 0;
}

#if defined(TRAINER_HAVE_MPI)
int test_mpi_cuda() {
  tc::CommOptions o;
  o.memory = tc::MemoryKind::kCuda;
  o.backend = tc::Backend::kMpi;
  auto comm = tc::Communicator::create_mpi(o);
  if (!ok_or_report(comm, "create_mpi (CUDA memory)")) return 1;
  const int n = comm->size();
  const std::size_t count = (std::size_t{1} << 20U) + 3;
  auto in = host_values(DataType::kFloat32, count, comm->rank());
  DeviceBuffer a(in.size());
  cudaMemcpy(a.p, in.data(), in.size(), cudaMemcpyHostToDevice);
  ok_or_report(comm->all_reduce(a.p, a.p, count, DataType::kFloat32, ReduceOp::kSum),
               "mpi cuda all_reduce");
  std::vector<float> out(count);
  cudaMemcpy(out.data(), a.p, in.size(), cudaMemcpyDeviceToHost);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i) {
    float want = 0;
    for (int r = 0; r < n; ++r) {
      want += static_cast<float>((i * 3 + static_cast<std::size_t>(r) * 5) % 11);
    }
    wrong += out[i] == want ? 0U : 1U;
  }
  expect(wrong == 0, "mpi cuda all_reduce sum (" + std::to_string(wrong) + " wrong)");
  if (comm->rank() == 0) std::printf("MPI backend with CUDA buffers on %d ranks: checked\n", n);
  return 0;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "nccl";
  const auto t0 = std::chrono::steady_clock::now();
  const bool gpu = tc::cuda_available();
  const double probe_us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  if (!gpu) {
    std::printf("SKIPPED: no GPU (probe took %.1f us; %s backend %s)\n", probe_us, "nccl",
                tc::backend_compiled(tc::Backend::kNccl) ? "compiled" : "not compiled");
    return 77;
  }
  int rc = 0;
  if (mode == "nccl") rc = test_nccl();
#if defined(TRAINER_HAVE_MPI)
  if (mode == "mpi-cuda") rc = test_mpi_cuda();
#endif
  std::printf("%s: %d failures\n", mode.c_str(), g_failures);
  return rc != 0 || g_failures != 0 ? 1 : 0;
}
