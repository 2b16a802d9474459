// SPDX-License-Identifier: Apache-2.0
//
// The backend interface behind trainer::collectives::Communicator. Arguments reaching a backend
// are already validated by communicator.cpp (pointers, counts, ranks, enum ranges).
#pragma once

#include "trainer/collectives.hpp"

#include <functional>
#include <memory>

namespace trainer::collectives::detail {

class CommImpl {
 public:
  CommImpl() = default;
  CommImpl(const CommImpl&) = delete;
  CommImpl& operator=(const CommImpl&) = delete;
  virtual ~CommImpl() = default;

  virtual Result<void> all_reduce(const void* send, void* recv, std::size_t count, DataType type,
                                  ReduceOp op) = 0;
  virtual Result<void> broadcast(const void* send, void* recv, std::size_t count, DataType type,
                                 int root) = 0;
  virtual Result<void> all_gather(const void* send, void* recv, std::size_t send_count,
                                  DataType type) = 0;
  virtual Result<void> reduce_scatter(const void* send, void* recv, std::size_t recv_count,
                                      DataType type, ReduceOp op) = 0;
  virtual Result<void> barrier() = 0;
  virtual Result<void> send(const void* buf, std::size_t count, DataType type, int peer) = 0;
  virtual Result<void> recv(void* buf, std::size_t count, DataType type, int peer) = 0;
  virtual Result<void> synchronize() = 0;

  int rank = 0;
  int size = 1;
  int local_rank = 0;
  int local_size = 1;
  Backend backend = Backend::kMpi;
  MemoryKind memory = MemoryKind::kHost;
};

using CommImplPtr = std::unique_ptr<CommImpl>;

#if defined(TRAINER_HAVE_MPI)
/// MPI communicator over MPI_COMM_WORLD (host memory, or CUDA memory via CUDA-aware MPI or
/// staging when built with CUDA).
Result<CommImplPtr> make_mpi_comm(const CommOptions& options);
struct MpiWorld {
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  int local_size = 1;
};
/// NCCL bootstrap over MPI (initialises MPI if needed): agrees on `have_gpu` (false if any rank
/// has none: returns false on every rank); otherwise rank 0 runs `make_id` and its `id_len`
/// bytes are broadcast into `id` on every rank.
Result<bool> mpi_bootstrap_exchange(bool have_gpu,
                                    const std::function<Result<void>(void* id)>& make_id, void* id,
                                    std::size_t id_len, MpiWorld* world);
#endif

#if defined(TRAINER_HAVE_NCCL)
/// NCCL communicator from a unique id that every rank already holds.
Result<CommImplPtr> make_nccl_comm(const void* unique_id, int rank, int size, int local_rank,
                                   int local_size, const CommOptions& options);
/// ncclGetUniqueId into `out` (NCCL_UNIQUE_ID_BYTES = 128 bytes).
Result<void> nccl_unique_id(void* out);
inline constexpr std::size_t kNcclIdBytes = 128;
#endif

/// Element-wise helpers on host memory (also used by the MPI user-defined ops).
/// out[i] = op(in[i], acc[i]) for kSum/kProd/kMin/kMax; `out` may be `acc` (nothing else may
/// overlap).
void reduce_host(const void* in, const void* acc, void* out, std::size_t count, DataType type,
                 ReduceOp op) noexcept;
/// inout[i] = op(in[i], inout[i]).
inline void reduce_host(const void* in, void* inout, std::size_t count, DataType type,
                        ReduceOp op) noexcept {
  reduce_host(in, inout, inout, count, type, op);
}
/// buf[i] /= divisor (kAvg's second step; integers truncate toward zero).
void divide_host(void* buf, std::size_t count, DataType type, int divisor) noexcept;

}  // namespace trainer::collectives::detail
