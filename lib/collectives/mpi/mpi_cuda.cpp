// SPDX-License-Identifier: Apache-2.0
// MPI backend on CUDA device buffers. CUDA-aware MPI (MPIX_Query_cuda_support() == 1) gets the
// device pointers for the operations that need no host-side arithmetic; everything else (and
// every operation on a non-CUDA-aware MPI) goes through persistent pinned host staging buffers:
// D2H copy, the host MPI operation, H2D copy. Compiled only with MPI and CUDA.
#include "collectives/cuda_error.hpp"
#include "collectives/mpi/mpi_backend.hpp"

#include <cuda_runtime_api.h>
#include <mpi-ext.h>

#include <climits>
#include <string>

namespace trainer::collectives::detail {
namespace {

bool mpi_is_cuda_aware() noexcept {
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
  return MPIX_Query_cuda_support() == 1;
#else
  return false;  // unknown MPI: never probe by passing device pointers
#endif
}

class MpiCudaComm final : public MpiComm {
 public:
  ~MpiCudaComm() override {
    if (stage_ != nullptr) cudaFreeHost(stage_);
  }

  Result<void> init_cuda(const CommOptions& options) {
    if (auto ok = init(options); !ok) return ok;
    if (!cuda_available()) {
      return fail(ErrorCode::kUnsupported, "CUDA memory requested but no CUDA device is usable");
    }
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess) return cuda_fail("cudaGetDeviceCount", e);
    const int device = options.device >= 0 ? options.device : local_rank % devices;
    if ((e = cudaSetDevice(device)) != cudaSuccess) return cuda_fail("cudaSetDevice", e);
    cuda_aware_ = mpi_is_cuda_aware();
    memory = MemoryKind::kCuda;
    return {};
  }

  Result<void> all_reduce(const void* send, void* recv, std::size_t count, DataType type,
                          ReduceOp op) override {
    if (count == 0) return {};
    if (cuda_aware_ && host_free(type, op)) {
      if (count > static_cast<std::size_t>(INT_MAX)) {  // reports the MPI count limit
        return host_all_reduce(send, recv, count, type, op);
      }
      return plain_all_reduce(send, recv, count, type, op);  // device pointers: no ring
    }
    const std::size_t bytes = count * size_of(type);
    if (auto ok = stage_in(send, bytes); !ok) return ok;
    if (auto ok = host_all_reduce(stage_, stage_, count, type, op); !ok) return ok;
    return stage_out(recv, bytes);
  }
  Result<void> broadcast(const void* send, void* recv, std::size_t count, DataType type,
                         int root) override {
    if (count == 0) return {};
    const std::size_t bytes = count * size_of(type);
    if (rank == root) {
      if (auto ok = stage_in(send, bytes); !ok) return ok;
    } else if (auto ok = reserve(bytes); !ok) {
      return ok;
    }
    if (auto ok = host_broadcast(stage_, stage_, count, type, root); !ok) return ok;
    return stage_out(recv, bytes);
  }
  Result<void> all_gather(const void* send, void* recv, std::size_t send_count,
                          DataType type) override {
    if (send_count == 0) return {};
    const std::size_t block = send_count * size_of(type);
    const std::size_t total = block * static_cast<std::size_t>(size);
    if (auto ok = reserve(total); !ok) return ok;
    char* mine = static_cast<char*>(stage_) + static_cast<std::size_t>(rank) * block;
    if (auto e = cudaMemcpy(mine, send, block, cudaMemcpyDeviceToHost); e != cudaSuccess) {
      return cuda_fail("cudaMemcpy D2H", e);
    }
    if (auto ok = host_all_gather(mine, stage_, send_count, type); !ok) return ok;
    return stage_out(recv, total);
  }
  Result<void> reduce_scatter(const void* send, void* recv, std::size_t recv_count, DataType type,
                              ReduceOp op) override {
    if (recv_count == 0) return {};
    const std::size_t block = recv_count * size_of(type);
    const std::size_t total = block * static_cast<std::size_t>(size);
    if (auto ok = stage_in(send, total); !ok) return ok;
    char* mine = static_cast<char*>(stage_) + static_cast<std::size_t>(rank) * block;
    if (auto ok = host_reduce_scatter(stage_, mine, recv_count, type, op); !ok) return ok;
    if (auto e = cudaMemcpy(recv, mine, block, cudaMemcpyHostToDevice); e != cudaSuccess) {
      return cuda_fail("cudaMemcpy H2D", e);
    }
    return {};
  }
  Result<void> send(const void* buf, std::size_t count, DataType type, int peer) override {
    if (cuda_aware_) return host_send(buf, count, type, peer);
    const std::size_t bytes = count * size_of(type);
    if (auto ok = stage_in(buf, bytes); !ok) return ok;
    return host_send(stage_, count, type, peer);
  }
  Result<void> recv(void* buf, std::size_t count, DataType type, int peer) override {
    if (cuda_aware_) return host_recv(buf, count, type, peer);
    const std::size_t bytes = count * size_of(type);
    if (auto ok = reserve(bytes); !ok) return ok;
    if (auto ok = host_recv(stage_, count, type, peer); !ok) return ok;
    return stage_out(buf, bytes);
  }

 private:
  // Operations whose MPI call runs no host code on the buffers (no half user op, no avg).
  static bool host_free(DataType type, ReduceOp op) {
    return type != DataType::kFloat16 && type != DataType::kBFloat16 && op != ReduceOp::kAvg;
  }

  Result<void> reserve(std::size_t bytes) {
    if (bytes <= capacity_) return {};
    if (stage_ != nullptr) cudaFreeHost(stage_);
    stage_ = nullptr;
    capacity_ = 0;
    if (auto e = cudaMallocHost(&stage_, bytes); e != cudaSuccess) {
      return cuda_fail("cudaMallocHost (staging buffer)", e);
    }
    capacity_ = bytes;
    return {};
  }
  Result<void> stage_in(const void* device, std::size_t bytes) {
    if (auto ok = reserve(bytes); !ok) return ok;
    if (auto e = cudaMemcpy(stage_, device, bytes, cudaMemcpyDeviceToHost); e != cudaSuccess) {
      return cuda_fail("cudaMemcpy D2H", e);
    }
    return {};
  }
  Result<void> stage_out(void* device, std::size_t bytes) {
    if (auto e = cudaMemcpy(device, stage_, bytes, cudaMemcpyHostToDevice); e != cudaSuccess) {
      return cuda_fail("cudaMemcpy H2D", e);
    }
    return {};
  }

  bool cuda_aware_ = false;
  void* stage_ = nullptr;
  std::size_t capacity_ = 0;
};

}  // namespace

Result<CommImplPtr> make_mpi_cuda_comm(const CommOptions& options) {
  auto comm = std::make_unique<MpiCudaComm>();
  if (auto ok = comm->init_cuda(options); !ok) return tl::unexpected(ok.error());
  return CommImplPtr(std::move(comm));
}

}  // namespace trainer::collectives::detail
