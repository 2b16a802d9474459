// SPDX-License-Identifier: Apache-2.0
//
// trainer.hpp's collectives section (include <trainer.hpp>, which includes this):
// abi::Communicator, a group of processes running collectives over MPI (host memory) or NCCL
// (CUDA memory), over the C ABI of trainer/collectives.h (docs/collectives.md: the environment
// variables and the semantics of every operation). The operations are templates over the element
// types the C ABI supports (ElementType); buffers are pointers because they may be device memory.
#pragma once

#include "trainer/abi_base.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace trainer::abi {

/// Element types (TRAINER_DTYPE_*).
enum class DataType : int {
  kInt8 = TRAINER_DTYPE_INT8,
  kUInt8 = TRAINER_DTYPE_UINT8,
  kInt32 = TRAINER_DTYPE_INT32,
  kInt64 = TRAINER_DTYPE_INT64,
  kFloat16 = TRAINER_DTYPE_FLOAT16,    ///< IEEE binary16
  kBFloat16 = TRAINER_DTYPE_BFLOAT16,  ///< bfloat16
  kFloat32 = TRAINER_DTYPE_FLOAT32,
  kFloat64 = TRAINER_DTYPE_FLOAT64,
};

/// Reductions (TRAINER_REDUCE_*); kAvg is sum / size, truncated toward zero for integers.
enum class ReduceOp : int {
  kSum = TRAINER_REDUCE_SUM,
  kProd = TRAINER_REDUCE_PROD,
  kMin = TRAINER_REDUCE_MIN,
  kMax = TRAINER_REDUCE_MAX,
  kAvg = TRAINER_REDUCE_AVG,
};

/// Backends (TRAINER_BACKEND_*); kAuto: MPI for host memory, NCCL for CUDA memory, unless
/// TRAINER_COLLECTIVES_BACKEND says otherwise.
enum class Backend : int {
  kAuto = TRAINER_BACKEND_AUTO,
  kMpi = TRAINER_BACKEND_MPI,
  kNccl = TRAINER_BACKEND_NCCL,
};

/// The memory a communicator's buffers live in (TRAINER_MEMORY_*).
enum class Memory : int {
  kHost = TRAINER_MEMORY_HOST,
  kCuda = TRAINER_MEMORY_CUDA,
};

/// A 16-bit IEEE binary16 value, as its bits (an element type of the operations).
struct Float16 {
  std::uint16_t bits = 0;
};
/// A bfloat16 value (the upper half of a binary32), as its bits.
struct BFloat16 {
  std::uint16_t bits = 0;
};

/// `ElementType<T>::value`: the DataType of an element type. Specialized for the types the C ABI
/// supports; an application may specialize it for its own 2-byte float types (CUDA's `__half`,
/// `__nv_bfloat16`) when they have the same layout.
template <class T>
struct ElementType;
template <>
struct ElementType<std::int8_t> {
  static constexpr DataType value = DataType::kInt8;
};
template <>
struct ElementType<std::uint8_t> {
  static constexpr DataType value = DataType::kUInt8;
};
template <>
struct ElementType<std::int32_t> {
  static constexpr DataType value = DataType::kInt32;
};
template <>
struct ElementType<std::int64_t> {
  static constexpr DataType value = DataType::kInt64;
};
template <>
struct ElementType<Float16> {
  static constexpr DataType value = DataType::kFloat16;
};
template <>
struct ElementType<BFloat16> {
  static constexpr DataType value = DataType::kBFloat16;
};
template <>
struct ElementType<float> {
  static constexpr DataType value = DataType::kFloat32;
};
template <>
struct ElementType<double> {
  static constexpr DataType value = DataType::kFloat64;
};

/// Options of the creating calls (trainer_comm_options).
struct CommOptions {
  Memory memory = Memory::kHost;
  Backend backend = Backend::kAuto;
  std::chrono::milliseconds timeout{0};  ///< bootstrap and NCCL wait limit [10 minutes]
  int device = -1;                       ///< CUDA device [local rank modulo visible devices]
  void* cuda_stream = nullptr;           ///< borrowed cudaStream_t [the communicator's own]
};

/// A communicator (trainer_comm). Move-only owner; any thread, one at a time. Every operation
/// but send/recv is collective: every rank calls it, in the same order. Buffers are in the
/// memory of CommOptions::memory; counts are elements. The typed operations take the DataType
/// from ElementType<T>; the untyped ones (void*, DataType) serve type-erased buffers.
class Communicator {
 public:
  /// From the environment (trainer_comm_init_from_env): mpirun's OMPI_COMM_WORLD_* (MPI),
  /// torchrun's RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT or Kubeflow's PET_* (NCCL through the
  /// TCP store, authenticated with TRAINER_RENDEZVOUS_SECRET). Errors: kInvalidArgument
  /// (malformed variables), kInvalid (ranks disagree), kTimeout, kIo, kUnsupported (a backend
  /// compiled out, a rank without a GPU).
  [[nodiscard]] static Result<Communicator> from_env(const CommOptions& options = {}) {
    const trainer_comm_options opts = c_options(options);
    trainer_comm* comm = nullptr;
    trainer_error* err = nullptr;
    const trainer_status status = trainer_comm_init_from_env(&opts, &comm, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return Communicator(comm);
  }

  /// Over every process of MPI_COMM_WORLD (trainer_comm_create_mpi).
  [[nodiscard]] static Result<Communicator> create_mpi(const CommOptions& options = {}) {
    const trainer_comm_options opts = c_options(options);
    trainer_comm* comm = nullptr;
    trainer_error* err = nullptr;
    const trainer_status status = trainer_comm_create_mpi(&opts, &comm, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return Communicator(comm);
  }

  /// NCCL, the ranks meeting at the TCP store (host, port) where rank 0 listens
  /// (trainer_comm_create_nccl); every rank passes the same `host` text. kUnsupported on every
  /// rank when one has no GPU.
  [[nodiscard]] static Result<Communicator> create_nccl(std::string_view host, std::uint16_t port,
                                                        int rank, int size, int local_rank,
                                                        int local_size,
                                                        const CommOptions& options = {}) {
    const trainer_comm_options opts = c_options(options);
    trainer_comm* comm = nullptr;
    trainer_error* err = nullptr;
    const trainer_status status = trainer_comm_create_nccl(
        host.data(), host.size(), port, rank, size, local_rank, local_size, &opts, &comm, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return Communicator(comm);
  }

  /// Takes ownership of a C handle.
  explicit Communicator(trainer_comm* owned) noexcept : comm_(owned) {}

  [[nodiscard]] int rank() const noexcept { return trainer_comm_rank(comm_.get()); }
  [[nodiscard]] int size() const noexcept { return trainer_comm_size(comm_.get()); }
  [[nodiscard]] int local_rank() const noexcept { return trainer_comm_local_rank(comm_.get()); }
  [[nodiscard]] int local_size() const noexcept { return trainer_comm_local_size(comm_.get()); }
  /// "mpi" or "nccl".
  [[nodiscard]] std::string_view backend_name() const noexcept {
    return detail::view(trainer_comm_backend_name(comm_.get()));
  }

  // ---- Untyped operations (trainer_comm_*) ----

  /// Reduces `count` elements of every rank's `send` into every rank's `recv` (in place when
  /// send == recv).
  [[nodiscard]] Result<void> all_reduce(const void* send, void* recv, std::size_t count,
                                        DataType type, ReduceOp op) {
    trainer_error* err = nullptr;
    const trainer_status status = trainer_comm_all_reduce(
        comm_.get(), send, recv, count, static_cast<int>(type), static_cast<int>(op), &err);
    return check(status, err);
  }
  /// `root`'s `send` into every rank's `recv` (`send` read on `root` only).
  [[nodiscard]] Result<void> broadcast(const void* send, void* recv, std::size_t count,
                                       DataType type, int root) {
    trainer_error* err = nullptr;
    const trainer_status status =
        trainer_comm_broadcast(comm_.get(), send, recv, count, static_cast<int>(type), root, &err);
    return check(status, err);
  }
  /// Every rank's `send_count` elements into `recv` (size() * send_count elements, by rank).
  [[nodiscard]] Result<void> all_gather(const void* send, void* recv, std::size_t send_count,
                                        DataType type) {
    trainer_error* err = nullptr;
    const trainer_status status =
        trainer_comm_all_gather(comm_.get(), send, recv, send_count, static_cast<int>(type), &err);
    return check(status, err);
  }
  /// Reduces `send` (size() * recv_count elements) and gives rank r block r in `recv`.
  [[nodiscard]] Result<void> reduce_scatter(const void* send, void* recv, std::size_t recv_count,
                                            DataType type, ReduceOp op) {
    trainer_error* err = nullptr;
    const trainer_status status = trainer_comm_reduce_scatter(
        comm_.get(), send, recv, recv_count, static_cast<int>(type), static_cast<int>(op), &err);
    return check(status, err);
  }
  /// Blocking point-to-point send to `peer`.
  [[nodiscard]] Result<void> send(const void* buf, std::size_t count, DataType type, int peer) {
    trainer_error* err = nullptr;
    const trainer_status status =
        trainer_comm_send(comm_.get(), buf, count, static_cast<int>(type), peer, &err);
    return check(status, err);
  }
  /// Blocking point-to-point receive from `peer`.
  [[nodiscard]] Result<void> recv(void* buf, std::size_t count, DataType type, int peer) {
    trainer_error* err = nullptr;
    const trainer_status status =
        trainer_comm_recv(comm_.get(), buf, count, static_cast<int>(type), peer, &err);
    return check(status, err);
  }

  // ---- Typed operations ----

  template <class T>
  [[nodiscard]] Result<void> all_reduce(const T* send, T* recv, std::size_t count, ReduceOp op) {
    return all_reduce(send, recv, count, ElementType<T>::value, op);
  }
  /// In place.
  template <class T>
  [[nodiscard]] Result<void> all_reduce(T* data, std::size_t count, ReduceOp op) {
    return all_reduce(data, data, count, ElementType<T>::value, op);
  }
  template <class T>
  [[nodiscard]] Result<void> broadcast(const T* send, T* recv, std::size_t count, int root) {
    return broadcast(send, recv, count, ElementType<T>::value, root);
  }
  /// In place: `data` is sent on `root` and received everywhere else.
  template <class T>
  [[nodiscard]] Result<void> broadcast(T* data, std::size_t count, int root) {
    return broadcast(data, data, count, ElementType<T>::value, root);
  }
  template <class T>
  [[nodiscard]] Result<void> all_gather(const T* send, T* recv, std::size_t send_count) {
    return all_gather(send, recv, send_count, ElementType<T>::value);
  }
  template <class T>
  [[nodiscard]] Result<void> reduce_scatter(const T* send, T* recv, std::size_t recv_count,
                                            ReduceOp op) {
    return reduce_scatter(send, recv, recv_count, ElementType<T>::value, op);
  }
  template <class T>
  [[nodiscard]] Result<void> send(const T* buf, std::size_t count, int peer) {
    return send(buf, count, ElementType<T>::value, peer);
  }
  template <class T>
  [[nodiscard]] Result<void> recv(T* buf, std::size_t count, int peer) {
    return recv(buf, count, ElementType<T>::value, peer);
  }

  /// Waits until every rank got here.
  [[nodiscard]] Result<void> barrier() {
    trainer_error* err = nullptr;
    const trainer_status status = trainer_comm_barrier(comm_.get(), &err);
    return check(status, err);
  }
  /// Waits for enqueued NCCL work (bounded by the timeout); nothing to do on MPI.
  [[nodiscard]] Result<void> synchronize() {
    trainer_error* err = nullptr;
    const trainer_status status = trainer_comm_synchronize(comm_.get(), &err);
    return check(status, err);
  }

  /// The C handle (still owned by this object).
  [[nodiscard]] trainer_comm* raw() const noexcept { return comm_.get(); }

 private:
  [[nodiscard]] static trainer_comm_options c_options(const CommOptions& options) noexcept {
    trainer_comm_options opts = TRAINER_COMM_OPTIONS_INIT;
    opts.memory = static_cast<std::int32_t>(options.memory);
    opts.backend = static_cast<std::int32_t>(options.backend);
    opts.timeout_ms = detail::millis(options.timeout);
    opts.device = static_cast<std::int32_t>(options.device);
    opts.cuda_stream = options.cuda_stream;
    return opts;
  }
  /// `status` and `err` of a call made before (not in the same expression: the order in which
  /// arguments are evaluated is unspecified, so `err` could be read before the call set it).
  [[nodiscard]] static Result<void> check(trainer_status status, trainer_error* err) {
    if (status != TRAINER_OK) return detail::failure(status, err);
    return {};
  }

  struct Deleter {
    void operator()(trainer_comm* c) const noexcept { trainer_comm_free(c); }
  };
  std::unique_ptr<trainer_comm, Deleter> comm_;
};

}  // namespace trainer::abi
