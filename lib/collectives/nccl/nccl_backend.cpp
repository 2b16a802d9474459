// SPDX-License-Identifier: Apache-2.0
// NCCL backend: CUDA device buffers, work enqueued on a CUDA stream, non-blocking
// communicators (ncclCommInitRankConfig with blocking = 0) so that every wait has a timeout,
// asynchronous errors polled with ncclCommGetAsyncError, ncclCommAbort on error or timeout.
#include "collectives/comm_impl.hpp"
#include "collectives/cuda_error.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstring>
#include <string>
#include <thread>

static_assert(NCCL_UNIQUE_ID_BYTES == trainer::collectives::detail::kNcclIdBytes,
              "NCCL unique id size changed");

namespace trainer::collectives::detail {
namespace {

using Clock = std::chrono::steady_clock;

ncclDataType_t nccl_type(DataType type) noexcept {
  switch (type) {
    case DataType::kInt8: return ncclInt8;
    case DataType::kUInt8: return ncclUint8;
    case DataType::kInt32: return ncclInt32;
    case DataType::kInt64: return ncclInt64;
    case DataType::kFloat16: return ncclFloat16;
    case DataType::kBFloat16: return ncclBfloat16;
    case DataType::kFloat32: return ncclFloat32;
    case DataType::kFloat64: return ncclFloat64;
  }
  return ncclFloat32;
}

ncclRedOp_t nccl_op(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::kSum: return ncclSum;
    case ReduceOp::kProd: return ncclProd;
    case ReduceOp::kMin: return ncclMin;
    case ReduceOp::kMax: return ncclMax;
    case ReduceOp::kAvg: return ncclAvg;  // integer types: sum, then divide (truncating)
  }
  return ncclSum;
}

class NcclComm final : public CommImpl {
 public:
  NcclComm() = default;
  ~NcclComm() override {
    if (comm_ != nullptr) {
      if (broken_) {
        ncclCommAbort(comm_);
      } else {
        // Flush, then destroy; abort instead if the flush does not finish in time (a peer is
        // gone): ncclCommDestroy would hang.
        ncclResult_t r = ncclCommFinalize(comm_);
        if (r == ncclInProgress) r = wait_ready("ncclCommFinalize") ? ncclSuccess : ncclSystemError;
        if (r == ncclSuccess) {
          ncclCommDestroy(comm_);
        } else {
          ncclCommAbort(comm_);
        }
      }
    }
    if (barrier_buf_ != nullptr) cudaFree(barrier_buf_);
    if (own_stream_ && stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  Result<void> init(const void* id, int r, int n, int lr, int ls, const CommOptions& options) {
    rank = r;
    size = n;
    local_rank = lr;
    local_size = ls;
    backend = Backend::kNccl;
    memory = MemoryKind::kCuda;
    timeout_ = options.timeout;
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess) return cuda_fail("cudaGetDeviceCount", e);
    if (devices < 1) return fail(ErrorCode::kUnsupported, "no CUDA device");
    device_ = options.device >= 0 ? options.device : lr % devices;
    if (device_ >= devices) {
      return fail(ErrorCode::kInvalidArgument, "CUDA device " + std::to_string(device_) +
                                                   " does not exist (" + std::to_string(devices) +
                                                   " visible)");
    }
    if ((e = cudaSetDevice(device_)) != cudaSuccess) return cuda_fail("cudaSetDevice", e);
    if (options.cuda_stream != nullptr) {
      stream_ = static_cast<cudaStream_t>(options.cuda_stream);
    } else {
      if ((e = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)) != cudaSuccess) {
        return cuda_fail("cudaStreamCreateWithFlags", e);
      }
      own_stream_ = true;
    }
    if ((e = cudaMalloc(&barrier_buf_, sizeof(float))) != cudaSuccess) {
      return cuda_fail("cudaMalloc", e);
    }
    ncclUniqueId uid;
    std::memcpy(&uid, id, sizeof uid);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    const ncclResult_t res = ncclCommInitRankConfig(&comm_, n, uid, r, &config);
    if (res != ncclSuccess && res != ncclInProgress) {
      broken_ = true;
      return nccl_fail("ncclCommInitRankConfig", res);
    }
    if (auto ok = wait_ready("ncclCommInitRankConfig"); !ok) return ok;
    return {};
  }

  Result<void> all_reduce(const void* send, void* recv, std::size_t count, DataType type,
                          ReduceOp op) override {
    if (count == 0) return {};
    return check(ncclAllReduce(send, recv, count, nccl_type(type), nccl_op(op), comm_, stream_),
                 "ncclAllReduce");
  }
  Result<void> broadcast(const void* send, void* recv, std::size_t count, DataType type,
                         int root) override {
    if (count == 0) return {};
    return check(ncclBroadcast(send, recv, count, nccl_type(type), root, comm_, stream_),
                 "ncclBroadcast");
  }
  Result<void> all_gather(const void* send, void* recv, std::size_t send_count,
                          DataType type) override {
    if (send_count == 0) return {};
    return check(ncclAllGather(send, recv, send_count, nccl_type(type), comm_, stream_),
                 "ncclAllGather");
  }
  Result<void> reduce_scatter(const void* send, void* recv, std::size_t recv_count, DataType type,
                              ReduceOp op) override {
    if (recv_count == 0) return {};
    return check(
        ncclReduceScatter(send, recv, recv_count, nccl_type(type), nccl_op(op), comm_, stream_),
        "ncclReduceScatter");
  }
  Result<void> barrier() override {
    // NCCL has no barrier: a one-element all-reduce, waited for.
    if (auto ok = check(
            ncclAllReduce(barrier_buf_, barrier_buf_, 1, ncclFloat32, ncclSum, comm_, stream_),
            "ncclAllReduce (barrier)");
        !ok) {
      return ok;
    }
    return synchronize();
  }
  Result<void> send(const void* buf, std::size_t count, DataType type, int peer) override {
    if (count == 0) return {};
    return check(ncclSend(buf, count, nccl_type(type), peer, comm_, stream_), "ncclSend");
  }
  Result<void> recv(void* buf, std::size_t count, DataType type, int peer) override {
    if (count == 0) return {};
    return check(ncclRecv(buf, count, nccl_type(type), peer, comm_, stream_), "ncclRecv");
  }

  Result<void> synchronize() override {
    if (broken_) return fail(ErrorCode::kIo, "NCCL communicator was aborted after an error");
    const auto deadline = Clock::now() + timeout_;
    auto pause = std::chrono::microseconds(1);
    for (;;) {
      const cudaError_t e = cudaStreamQuery(stream_);
      if (e == cudaSuccess) break;
      if (e != cudaErrorNotReady) {
        broken_ = true;
        return cuda_fail("cudaStreamQuery", e);
      }
      ncclResult_t async = ncclSuccess;
      ncclCommGetAsyncError(comm_, &async);
      if (async != ncclSuccess && async != ncclInProgress) {
        broken_ = true;
        ncclCommAbort(comm_);
        comm_ = nullptr;
        return nccl_fail("NCCL asynchronous error", async);
      }
      if (Clock::now() >= deadline) {
        broken_ = true;
        ncclCommAbort(comm_);
        comm_ = nullptr;
        return fail(ErrorCode::kTimeout, "NCCL work did not complete within " +
                                             std::to_string(timeout_.count()) +
                                             " ms; communicator aborted");
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(1000));
    }
    ncclResult_t async = ncclSuccess;
    ncclCommGetAsyncError(comm_, &async);
    if (async != ncclSuccess && async != ncclInProgress) return nccl_fail("NCCL", async);
    return {};
  }

 private:
  tl::unexpected<Error> nccl_fail(const char* what, ncclResult_t r) {
    std::string msg = std::string(what) + " failed: " + ncclGetErrorString(r);
    const char* last = comm_ != nullptr ? ncclGetLastError(comm_) : ncclGetLastError(nullptr);
    if (last != nullptr && *last != '\0') msg += std::string(" (") + last + ")";
    return fail(r == ncclInvalidArgument || r == ncclInvalidUsage ? ErrorCode::kInvalidArgument
                                                                  : ErrorCode::kIo,
                msg);
  }

  // Non-blocking communicators may answer ncclInProgress; wait (bounded) for completion.
  Result<void> check(ncclResult_t r, const char* what) {
    if (r == ncclSuccess) return {};
    if (r == ncclInProgress) return wait_ready(what);
    return nccl_fail(what, r);
  }

  Result<void> wait_ready(const char* what) {
    const auto deadline = Clock::now() + timeout_;
    auto pause = std::chrono::microseconds(1);
    for (;;) {
      ncclResult_t state = ncclSuccess;
      const ncclResult_t r = ncclCommGetAsyncError(comm_, &state);
      if (r != ncclSuccess) state = r;
      if (state == ncclSuccess) return {};
      if (state != ncclInProgress) {
        broken_ = true;
        return nccl_fail(what, state);
      }
      if (Clock::now() >= deadline) {
        broken_ = true;
        return fail(ErrorCode::kTimeout, std::string(what) + " did not complete within " +
                                             std::to_string(timeout_.count()) +
                                             " ms (a peer never joined or died)");
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(1000));
    }
  }

  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  bool own_stream_ = false;
  bool broken_ = false;
  int device_ = 0;
  void* barrier_buf_ = nullptr;
  std::chrono::milliseconds timeout_ = kDefaultTimeout;
};

}  // namespace

Result<void> nccl_unique_id(void* out) {
  ncclUniqueId id;
  const ncclResult_t r = ncclGetUniqueId(&id);
  if (r != ncclSuccess) {
    return fail(ErrorCode::kIo, std::string("ncclGetUniqueId failed: ") + ncclGetErrorString(r));
  }
  std::memcpy(out, &id, sizeof id);
  return {};
}

Result<CommImplPtr> make_nccl_comm(const void* unique_id, int rank, int size, int local_rank,
                                   int local_size, const CommOptions& options) {
  auto comm = std::make_unique<NcclComm>();
  // On failure the destructor aborts the half-built communicator (broken_ is set).
  if (auto ok = comm->init(unique_id, rank, size, local_rank, local_size, options); !ok) {
    return tl::unexpected(ok.error());
  }
  return CommImplPtr(std::move(comm));
}

}  // namespace trainer::collectives::detail
