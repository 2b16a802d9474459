// SPDX-License-Identifier: Apache-2.0
// The MPI backend (private; includes mpi.h).
#pragma once

#include "collectives/comm_impl.hpp"
#include "collectives/mpi/shm_all_reduce.hpp"

#include <mpi.h>

#include <memory>
#include <vector>

namespace trainer::collectives::detail {

/// Initialises MPI unless it is initialised already (then the caller owns it). When we
/// initialise it we register MPI_Finalize with std::atexit. Thread-safe.
Result<void> ensure_mpi_initialized();
bool mpi_finalized() noexcept;
MPI_Datatype mpi_type(DataType type) noexcept;
tl::unexpected<Error> mpi_fail(const char* what, int rc);

/// Host-memory MPI communicator: a duplicate of MPI_COMM_WORLD with MPI_ERRORS_RETURN.
class MpiComm : public CommImpl {
 public:
  static constexpr int kP2pTag = 0x7472;   // "tr"
  static constexpr int kRingTag = 0x7473;  // point-to-point traffic of our own algorithms
  /// Default size from which all_reduce on a communicator that spans nodes uses the ring over
  /// persistent scratch instead of MPI_Allreduce (override: TRAINER_MPI_RING_THRESHOLD bytes,
  /// read at creation).
  static constexpr std::size_t kDefaultRingThreshold = std::size_t{32} << 20U;
  /// Default size from which all_reduce on a communicator within one node uses ShmAllReduce:
  /// every size (measured faster than MPI_Allreduce from 8 bytes on). Override:
  /// TRAINER_MPI_SHM_THRESHOLD bytes, read at creation; 0 turns it off.
  static constexpr std::size_t kDefaultShmThreshold = 1;
  /// Default whole-buffer size from which reduce_scatter uses our ring (override:
  /// TRAINER_MPI_RS_RING_THRESHOLD bytes, read at creation).
  static constexpr std::size_t kDefaultRsRingThreshold = std::size_t{16} << 10U;
  /// Largest ring block (scratch space is one block).
  static constexpr std::size_t kRingBlockBytes = std::size_t{32} << 20U;

  MpiComm() = default;
  ~MpiComm() override;
  /// Duplicates MPI_COMM_WORLD. With `shared_memory` and every rank on this node, also sets up
  /// the shared-memory all-reduce (collective).
  Result<void> init(const CommOptions& options, bool shared_memory = true);
  [[nodiscard]] MPI_Comm handle() const noexcept { return comm_; }
  [[nodiscard]] MPI_Op op_for(DataType type, ReduceOp op) const noexcept;

  Result<void> host_all_reduce(const void* send, void* recv, std::size_t count, DataType type,
                               ReduceOp op);
  /// MPI_Allreduce (+ the division of kAvg); count already checked, non-zero.
  Result<void> plain_all_reduce(const void* send, void* recv, std::size_t count, DataType type,
                                ReduceOp op);
  Result<void> ring_all_reduce(const void* send, void* recv, std::size_t count, DataType type,
                               ReduceOp op);
  Result<void> ring_reduce_scatter(const void* send, void* recv, std::size_t recv_count,
                                   DataType type, ReduceOp op);
  Result<void> host_broadcast(const void* send, void* recv, std::size_t count, DataType type,
                              int root);
  Result<void> host_all_gather(const void* send, void* recv, std::size_t send_count, DataType type);
  Result<void> host_reduce_scatter(const void* send, void* recv, std::size_t recv_count,
                                   DataType type, ReduceOp op);
  Result<void> host_send(const void* buf, std::size_t count, DataType type, int peer);
  Result<void> host_recv(void* buf, std::size_t count, DataType type, int peer);

  Result<void> all_reduce(const void* send, void* recv, std::size_t count, DataType type,
                          ReduceOp op) override {
    return host_all_reduce(send, recv, count, type, op);
  }
  Result<void> broadcast(const void* send, void* recv, std::size_t count, DataType type,
                         int root) override {
    return host_broadcast(send, recv, count, type, root);
  }
  Result<void> all_gather(const void* send, void* recv, std::size_t send_count,
                          DataType type) override {
    return host_all_gather(send, recv, send_count, type);
  }
  Result<void> reduce_scatter(const void* send, void* recv, std::size_t recv_count, DataType type,
                              ReduceOp op) override {
    return host_reduce_scatter(send, recv, recv_count, type, op);
  }
  Result<void> barrier() override;
  Result<void> send(const void* buf, std::size_t count, DataType type, int peer) override {
    return host_send(buf, count, type, peer);
  }
  Result<void> recv(void* buf, std::size_t count, DataType type, int peer) override {
    return host_recv(buf, count, type, peer);
  }
  Result<void> synchronize() override { return {}; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::size_t ring_threshold_ = kDefaultRingThreshold;
  std::size_t rs_ring_threshold_ = kDefaultRsRingThreshold;
  std::size_t shm_threshold_ = kDefaultShmThreshold;
  std::unique_ptr<ShmAllReduce> shm_;  // null when the ranks span nodes or it is turned off
  std::vector<char> scratch_;
  MPI_Op half_ops_[2][4] = {{MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL},
                            {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL}};
};

/// MPI communicator for CUDA buffers (CUDA-aware MPI or pinned staging); kUnsupported in
/// builds without CUDA.
Result<CommImplPtr> make_mpi_cuda_comm(const CommOptions& options);

}  // namespace trainer::collectives::detail
