// SPDX-License-Identifier: Apache-2.0
// MPI backend: MPI_COMM_WORLD duplicated with MPI_ERRORS_RETURN; host buffers (CUDA buffers
// through CUDA-aware MPI or pinned staging, see mpi_cuda.cpp). float16/bfloat16 reductions use
// user-defined MPI_Ops over MPI_UINT16_T (MPI has no half-precision arithmetic).
#include "collectives/mpi/mpi_backend.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <type_traits>

namespace trainer::collectives::detail {
namespace {

std::mutex g_mpi_init_mutex;

void finalize_mpi_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Finalize();
}

template <class H, ReduceOp kOp>
void half_op(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  const DataType t = std::is_same_v<H, Float16> ? DataType::kFloat16 : DataType::kBFloat16;
  reduce_host(in, inout, static_cast<std::size_t>(*len), t, kOp);
}

// Byte counts from the environment, for benchmarks and tests; unset or malformed: `*value` stays.
void env_bytes(const char* name, std::size_t* value) {
  const char* t = std::getenv(name);
  if (t == nullptr) return;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(t, &end, 10);
  if (end != t && *end == '\0') *value = static_cast<std::size_t>(v);
}

using HalfOpFn = void (*)(void*, void*, int*, MPI_Datatype*);
constexpr HalfOpFn kHalfOps[2][4] = {
    {half_op<Float16, ReduceOp::kSum>, half_op<Float16, ReduceOp::kProd>,
     half_op<Float16, ReduceOp::kMin>, half_op<Float16, ReduceOp::kMax>},
    {half_op<BFloat16, ReduceOp::kSum>, half_op<BFloat16, ReduceOp::kProd>,
     half_op<BFloat16, ReduceOp::kMin>, half_op<BFloat16, ReduceOp::kMax>},
};

}  // namespace

tl::unexpected<Error> mpi_fail(const char* what, int rc) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  return fail(ErrorCode::kIo, std::string(what) +
                                  " failed: " + std::string(text, std::size_t(len)) +
                                  " (MPI error " + std::to_string(rc) + ")");
}

Result<void> ensure_mpi_initialized() {
  const std::lock_guard<std::mutex> lock(g_mpi_init_mutex);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized != 0) {
    return fail(ErrorCode::kUnsupported, "MPI has already been finalized in this process");
  }
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized != 0) return {};  // the caller owns MPI's lifetime
  int provided = 0;
  const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Init_thread", rc);
  // We initialised MPI, so we finalise it, once, at process exit: communicators may come and
  // go before that, and MPI cannot be initialised twice.
  if (std::atexit(finalize_mpi_at_exit) != 0) {
    return fail(ErrorCode::kInternal, "std::atexit(MPI_Finalize) failed");
  }
  return {};
}

bool mpi_finalized() noexcept {
  int finalized = 0;
  MPI_Finalized(&finalized);
  return finalized != 0;
}

MPI_Datatype mpi_type(DataType type) noexcept {
  switch (type) {
    case DataType::kInt8: return MPI_INT8_T;
    case DataType::kUInt8: return MPI_UINT8_T;
    case DataType::kInt32: return MPI_INT32_T;
    case DataType::kInt64: return MPI_INT64_T;
    case DataType::kFloat16:
    case DataType::kBFloat16: return MPI_UINT16_T;
    case DataType::kFloat32: return MPI_FLOAT;
    case DataType::kFloat64: return MPI_DOUBLE;
  }
  return MPI_DATATYPE_NULL;
}

MpiComm::~MpiComm() {
  if (mpi_finalized()) return;  // MPI already gone: its handles went with it
  for (auto& row : half_ops_) {
    for (MPI_Op& op : row) {
      if (op != MPI_OP_NULL) MPI_Op_free(&op);
    }
  }
  shm_.reset();  // its window goes before the communicator
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

Result<void> MpiComm::init(const CommOptions& options, bool shared_memory) {
  if (auto ok = ensure_mpi_initialized(); !ok) return ok;
  MpiComm* comm = this;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &comm->comm_);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Comm_dup", rc);
  rc = MPI_Comm_set_errhandler(comm->comm_, MPI_ERRORS_RETURN);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Comm_set_errhandler", rc);
  MPI_Comm_rank(comm->comm_, &comm->rank);
  MPI_Comm_size(comm->comm_, &comm->size);
  MPI_Comm local = MPI_COMM_NULL;
  rc = MPI_Comm_split_type(comm->comm_, MPI_COMM_TYPE_SHARED, comm->rank, MPI_INFO_NULL, &local);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Comm_split_type", rc);
  MPI_Comm_rank(local, &comm->local_rank);
  MPI_Comm_size(local, &comm->local_size);
  MPI_Comm_free(&local);
  for (int t = 0; t < 2; ++t) {
    for (int o = 0; o < 4; ++o) {
      rc = MPI_Op_create(kHalfOps[t][o], 1, &comm->half_ops_[t][o]);
      if (rc != MPI_SUCCESS) return mpi_fail("MPI_Op_create", rc);
    }
  }
  std::size_t chunk = ShmAllReduce::kDefaultChunkBytes;
  env_bytes("TRAINER_MPI_RING_THRESHOLD", &ring_threshold_);
  env_bytes("TRAINER_MPI_RS_RING_THRESHOLD", &rs_ring_threshold_);
  env_bytes("TRAINER_MPI_SHM_THRESHOLD", &shm_threshold_);
  env_bytes("TRAINER_MPI_SHM_CHUNK", &chunk);
  // Every rank must pick the same algorithm for the same call: rank 0's settings win.
  std::uint64_t tunables[4] = {ring_threshold_, rs_ring_threshold_, shm_threshold_, chunk};
  rc = MPI_Bcast(tunables, 4, MPI_UINT64_T, 0, comm_);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Bcast", rc);
  ring_threshold_ = static_cast<std::size_t>(tunables[0]);
  rs_ring_threshold_ = static_cast<std::size_t>(tunables[1]);
  shm_threshold_ = static_cast<std::size_t>(tunables[2]);
  chunk = static_cast<std::size_t>(tunables[3]);
  // Every rank sees the same local_size == size, so all of them take this collective or none.
  if (shared_memory && size > 1 && local_size == size && shm_threshold_ != 0) {
    auto made = ShmAllReduce::create(comm_, options.timeout, chunk);
    if (!made) return tl::unexpected(made.error());
    shm_ = std::move(*made);
  }
  comm->backend = Backend::kMpi;
  comm->memory = options.memory;
  return {};
}

MPI_Op MpiComm::op_for(DataType type, ReduceOp op) const noexcept {
  const int o = op == ReduceOp::kAvg ? 0 : static_cast<int>(op);
  if (type == DataType::kFloat16) return half_ops_[0][o];
  if (type == DataType::kBFloat16) return half_ops_[1][o];
  switch (op) {
    case ReduceOp::kProd: return MPI_PROD;
    case ReduceOp::kMin: return MPI_MIN;
    case ReduceOp::kMax: return MPI_MAX;
    case ReduceOp::kSum:
    case ReduceOp::kAvg: break;
  }
  return MPI_SUM;
}

namespace {

Result<void> check_count(std::size_t count, const char* what) {
  if (count > static_cast<std::size_t>(INT_MAX)) {
    return fail(ErrorCode::kLimit, std::string(what) + ": " + std::to_string(count) +
                                       " elements exceed the MPI backend's limit of INT_MAX");
  }
  return {};
}

}  // namespace

Result<void> MpiComm::host_all_reduce(const void* send, void* recv, std::size_t count,
                                      DataType type, ReduceOp op) {
  if (count == 0) return {};
  if (auto ok = check_count(count, "all_reduce"); !ok) return ok;
  const std::size_t bytes = count * size_of(type);
  if (shm_ && bytes >= shm_threshold_) return shm_->run(send, recv, count, type, op);
  if (size > 1 && bytes >= ring_threshold_) return ring_all_reduce(send, recv, count, type, op);
  return plain_all_reduce(send, recv, count, type, op);
}

Result<void> MpiComm::plain_all_reduce(const void* send, void* recv, std::size_t count,
                                       DataType type, ReduceOp op) {
  const int rc = MPI_Allreduce(send == recv ? MPI_IN_PLACE : send, recv, static_cast<int>(count),
                               mpi_type(type), op_for(type, op), comm_);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Allreduce", rc);
  if (op == ReduceOp::kAvg) divide_host(recv, count, type, size);
  return {};
}

// Ring all-reduce (reduce-scatter, then all-gather) over persistent scratch space, for large
// buffers: Open MPI 4.1 allocates (and, through glibc's mmap threshold, page-faults) a fresh
// temporary buffer on every large MPI_Allreduce. Every block is reduced once, by one rank, in
// a fixed order, so all ranks end with bit-identical results.
Result<void> MpiComm::ring_all_reduce(const void* send, void* recv, std::size_t count,
                                      DataType type, ReduceOp op) {
  const std::size_t elt = size_of(type);
  const auto n = static_cast<std::size_t>(size);
  const auto me = static_cast<std::size_t>(rank);
  if (send != recv) std::memcpy(recv, send, count * elt);
  char* buf = static_cast<char*>(recv);
  const int right = (rank + 1) % size;
  const int left = (rank + size - 1) % size;
  const ReduceOp combine = op == ReduceOp::kAvg ? ReduceOp::kSum : op;
  // Segments bound the scratch space: each block of a segment is at most kRingBlockBytes.
  const std::size_t seg_max = std::max<std::size_t>(n, (kRingBlockBytes / elt) * n);
  if (scratch_.size() < std::min(count / n + 1, seg_max / n) * elt) {
    scratch_.resize(std::min(count / n + 1, seg_max / n) * elt);  // once, then reused
  }
  for (std::size_t seg_off = 0; seg_off < count; seg_off += seg_max) {
    const std::size_t seg = std::min(seg_max, count - seg_off);
    const std::size_t base = seg / n;
    const std::size_t extra = seg % n;
    auto block_off = [&](std::size_t b) { return seg_off + b * base + std::min(b, extra); };
    auto block_len = [&](std::size_t b) { return base + (b < extra ? 1U : 0U); };
    for (std::size_t step = 0; step + 1 < n; ++step) {
      const std::size_t sb = (me + n - step) % n;
      const std::size_t rb = (me + n - step - 1) % n;
      const int rc =
          MPI_Sendrecv(buf + block_off(sb) * elt, static_cast<int>(block_len(sb) * elt), MPI_BYTE,
                       right, kRingTag, scratch_.data(), static_cast<int>(block_len(rb) * elt),
                       MPI_BYTE, left, kRingTag, comm_, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return mpi_fail("MPI_Sendrecv (ring all_reduce)", rc);
      reduce_host(scratch_.data(), buf + block_off(rb) * elt, block_len(rb), type, combine);
    }
    for (std::size_t step = 0; step + 1 < n; ++step) {
      const std::size_t sb = (me + 1 + n - step) % n;
      const std::size_t rb = (me + n - step) % n;
      const int rc = MPI_Sendrecv(buf + block_off(sb) * elt, static_cast<int>(block_len(sb) * elt),
                                  MPI_BYTE, right, kRingTag, buf + block_off(rb) * elt,
                                  static_cast<int>(block_len(rb) * elt), MPI_BYTE, left, kRingTag,
                                  comm_, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return mpi_fail("MPI_Sendrecv (ring all_gather)", rc);
    }
  }
  if (op == ReduceOp::kAvg) divide_host(recv, count, type, size);
  return {};
}

// Ring reduce-scatter over two persistent scratch blocks, for large buffers (Open MPI 4.1's
// MPI_Reduce_scatter_block allocates two temporary buffers per call and is page-fault bound).
// Step s sends the partial sum of block (rank - s - 1) mod n to the right neighbour and adds the
// own contribution to the partial sum of block (rank - s - 2) mod n received from the left; after
// n - 1 steps the last block received is this rank's, fully reduced. `send` is only read, so
// out-of-place leaves it intact; in place, the result lands in this rank's block directly.
Result<void> MpiComm::ring_reduce_scatter(const void* send, void* recv, std::size_t recv_count,
                                          DataType type, ReduceOp op) {
  const std::size_t elt = size_of(type);
  const auto n = static_cast<std::size_t>(size);
  const auto me = static_cast<std::size_t>(rank);
  const char* in = static_cast<const char*>(send);
  char* out = static_cast<char*>(recv);
  const int right = (rank + 1) % size;
  const int left = (rank + size - 1) % size;
  const ReduceOp combine = op == ReduceOp::kAvg ? ReduceOp::kSum : op;
  const std::size_t seg_max = std::max<std::size_t>(1, kRingBlockBytes / elt);
  const std::size_t seg_cap = std::min(seg_max, recv_count);
  if (scratch_.size() < 2 * seg_cap * elt) scratch_.resize(2 * seg_cap * elt);  // once
  char* bufs[2] = {scratch_.data(), scratch_.data() + seg_cap * elt};
  const bool in_place = out == in + me * recv_count * elt;
  for (std::size_t seg_off = 0; seg_off < recv_count; seg_off += seg_max) {
    const std::size_t len = std::min(seg_max, recv_count - seg_off);
    const auto bytes = static_cast<int>(len * elt);
    auto own = [&](std::size_t b) { return in + (b * recv_count + seg_off) * elt; };
    const char* cur = own((me + n - 1) % n);  // step 0 sends our own data of that block
    for (std::size_t step = 0; step + 1 < n; ++step) {
      const std::size_t rb = (me + 2 * n - step - 2) % n;
      const bool last = step + 2 == n;
      char* target = last && !in_place ? out + seg_off * elt : bufs[step % 2];
      const int rc = MPI_Sendrecv(cur, bytes, MPI_BYTE, right, kRingTag, target, bytes, MPI_BYTE,
                                  left, kRingTag, comm_, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return mpi_fail("MPI_Sendrecv (ring reduce_scatter)", rc);
      if (last && in_place) {
        reduce_host(target, out + seg_off * elt, len, type, combine);  // own data is in place
      } else {
        reduce_host(own(rb), target, len, type, combine);
      }
      cur = target;
    }
  }
  if (op == ReduceOp::kAvg) divide_host(recv, recv_count, type, size);
  return {};
}

Result<void> MpiComm::host_broadcast(const void* send, void* recv, std::size_t count, DataType type,
                                     int root) {
  if (count == 0) return {};
  if (auto ok = check_count(count, "broadcast"); !ok) return ok;
  if (rank == root && send != recv) std::memcpy(recv, send, count * size_of(type));
  const int rc = MPI_Bcast(recv, static_cast<int>(count), mpi_type(type), root, comm_);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Bcast", rc);
  return {};
}

Result<void> MpiComm::host_all_gather(const void* send, void* recv, std::size_t send_count,
                                      DataType type) {
  if (send_count == 0) return {};
  if (auto ok = check_count(send_count * static_cast<std::size_t>(size), "all_gather"); !ok) {
    return ok;
  }
  const std::size_t block = send_count * size_of(type);
  const void* in_place = static_cast<const char*>(recv) + static_cast<std::size_t>(rank) * block;
  const int n = static_cast<int>(send_count);
  const int rc = MPI_Allgather(send == in_place ? MPI_IN_PLACE : send, n, mpi_type(type), recv, n,
                               mpi_type(type), comm_);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Allgather", rc);
  return {};
}

Result<void> MpiComm::host_reduce_scatter(const void* send, void* recv, std::size_t recv_count,
                                          DataType type, ReduceOp op) {
  if (recv_count == 0) return {};
  if (auto ok = check_count(recv_count * static_cast<std::size_t>(size), "reduce_scatter"); !ok) {
    return ok;
  }
  const std::size_t block = recv_count * size_of(type);
  if (size > 1 && block * static_cast<std::size_t>(size) >= rs_ring_threshold_) {
    return ring_reduce_scatter(send, recv, recv_count, type, op);
  }
  const void* in_place = static_cast<const char*>(send) + static_cast<std::size_t>(rank) * block;
  const int n = static_cast<int>(recv_count);
  if (recv == in_place) {
    // MPI_IN_PLACE leaves the result at the start of the buffer; NCCL's convention (ours) wants
    // it in this rank's block.
    void* buf = const_cast<void*>(send);  // in place: `send` is the caller's writable buffer
    const int rc =
        MPI_Reduce_scatter_block(MPI_IN_PLACE, buf, n, mpi_type(type), op_for(type, op), comm_);
    if (rc != MPI_SUCCESS) return mpi_fail("MPI_Reduce_scatter_block", rc);
    if (rank != 0) std::memmove(recv, buf, block);
  } else {
    const int rc = MPI_Reduce_scatter_block(send, recv, n, mpi_type(type), op_for(type, op), comm_);
    if (rc != MPI_SUCCESS) return mpi_fail("MPI_Reduce_scatter_block", rc);
  }
  if (op == ReduceOp::kAvg) divide_host(recv, recv_count, type, size);
  return {};
}

Result<void> MpiComm::barrier() {
  const int rc = MPI_Barrier(comm_);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Barrier", rc);
  return {};
}

Result<void> MpiComm::host_send(const void* buf, std::size_t count, DataType type, int peer) {
  if (auto ok = check_count(count, "send"); !ok) return ok;
  const int rc = MPI_Send(buf, static_cast<int>(count), mpi_type(type), peer, kP2pTag, comm_);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Send", rc);
  return {};
}

Result<void> MpiComm::host_recv(void* buf, std::size_t count, DataType type, int peer) {
  if (auto ok = check_count(count, "recv"); !ok) return ok;
  MPI_Status status;
  int rc = MPI_Recv(buf, static_cast<int>(count), mpi_type(type), peer, kP2pTag, comm_, &status);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Recv", rc);
  int got = 0;
  rc = MPI_Get_count(&status, mpi_type(type), &got);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Get_count", rc);
  if (static_cast<std::size_t>(got) != count) {
    return fail(ErrorCode::kInvalid, "recv from rank " + std::to_string(peer) + ": got " +
                                         std::to_string(got) + " elements, expected " +
                                         std::to_string(count));
  }
  return {};
}

Result<CommImplPtr> make_mpi_comm(const CommOptions& options) {
  if (options.memory == MemoryKind::kCuda) return make_mpi_cuda_comm(options);
  auto comm = std::make_unique<MpiComm>();
  if (auto ok = comm->init(options); !ok) return tl::unexpected(ok.error());
  return CommImplPtr(std::move(comm));
}

Result<bool> mpi_bootstrap_exchange(bool have_gpu,
                                    const std::function<Result<void>(void* id)>& make_id, void* id,
                                    std::size_t id_len, MpiWorld* world) {
  MpiComm c;
  if (auto ok = c.init(CommOptions{}, false); !ok) return tl::unexpected(ok.error());
  *world = MpiWorld{c.rank, c.size, c.local_rank, c.local_size};
  int mine = have_gpu ? 1 : 0;
  int all = 0;
  int rc = MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, c.handle());
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Allreduce", rc);
  if (all == 0) return false;
  // Byte 0: 1 when rank 0 produced an id, so a failure on rank 0 reaches every rank.
  std::string buf(id_len + 1, '\0');
  std::string root_error;
  if (c.rank == 0) {
    auto made = make_id(&buf[1]);
    if (made) {
      buf[0] = 1;
    } else {
      root_error = made.error().message;
    }
  }
  rc = MPI_Bcast(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, 0, c.handle());
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Bcast", rc);
  if (buf[0] != 1) {
    return fail(ErrorCode::kIo, "rank 0 could not create the NCCL unique id" +
                                    (root_error.empty() ? std::string() : ": " + root_error));
  }
  std::memcpy(id, &buf[1], id_len);
  return true;
}

#if !defined(TRAINER_HAVE_NCCL)
Result<CommImplPtr> make_mpi_cuda_comm(const CommOptions& /*options*/) {
  return fail(ErrorCode::kUnsupported,
              "CUDA memory on the MPI backend needs a libtrainer built with CUDA "
              "(TRAINER_WITH_NCCL)");
}
#endif

}  // namespace trainer::collectives::detail
