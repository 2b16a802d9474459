// SPDX-License-Identifier: Apache-2.0
//
// The data plane: a `Communicator` that all-reduces (and broadcasts, gathers, scatters, ...)
// buffers across the processes of a training job, over MPI (host memory) or NCCL (CUDA device
// memory), bootstrapped from the environment that the runtime injects (mpirun's OMPI_* or the
// torch-style PET_* / torchrun variables) or from explicit parameters.
//
// Everything here returns `Result` values; nothing aborts the process. No MPI, NCCL or CUDA
// header is included: the backends are private to the library. docs/collectives.md describes the
// environment variables, the port rule of the TCP store and the semantics of every operation.
#pragma once

#include "trainer/error.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::collectives {

/// Element type of a buffer. The numeric values are the C ABI's TRAINER_DTYPE_* values.
enum class DataType : int {
  kInt8 = 0,
  kUInt8 = 1,
  kInt32 = 2,
  kInt64 = 3,
  kFloat16 = 4,   ///< IEEE 754 binary16
  kBFloat16 = 5,  ///< bfloat16 (the upper half of a binary32)
  kFloat32 = 6,
  kFloat64 = 7,
};

/// Reduction. `kAvg` is the sum divided by the communicator size; for integer types the
/// division truncates toward zero (C++ `/` on the sum), for floating types it is one IEEE
/// division of the sum (halves: computed in float, rounded to nearest even once).
/// The numeric values are the C ABI's TRAINER_REDUCE_* values.
enum class ReduceOp : int { kSum = 0, kProd = 1, kMin = 2, kMax = 3, kAvg = 4 };

/// The transport behind a communicator. Numeric values are the C ABI's TRAINER_BACKEND_*.
enum class Backend : int { kMpi = 0, kNccl = 1 };

/// Where the buffers passed to a communicator live. A communicator accepts exactly one kind,
/// chosen at creation (`CommOptions::memory`):
/// - MPI backend: kHost; kCuda through CUDA-aware MPI when `MPIX_Query_cuda_support()` is 1,
///   otherwise through pinned host staging buffers (needs a build with CUDA).
/// - NCCL backend: kCuda only.
enum class MemoryKind : int { kHost = 0, kCuda = 1 };

/// Size in bytes of one element (1, 1, 4, 8, 2, 2, 4, 8).
[[nodiscard]] std::size_t size_of(DataType type) noexcept;
/// "int8", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64".
[[nodiscard]] const char* to_string(DataType type) noexcept;
/// "sum", "prod", "min", "max", "avg".
[[nodiscard]] const char* to_string(ReduceOp op) noexcept;
/// "mpi", "nccl".
[[nodiscard]] const char* to_string(Backend backend) noexcept;
/// "host", "cuda".
[[nodiscard]] const char* to_string(MemoryKind memory) noexcept;

/// IEEE binary16 stored as its bits. Conversions round to nearest even.
struct Float16 {
  std::uint16_t bits = 0;
  [[nodiscard]] static Float16 from_float(float value) noexcept;
  [[nodiscard]] float to_float() const noexcept;
  friend bool operator==(Float16 a, Float16 b) noexcept { return a.bits == b.bits; }
};

/// bfloat16 stored as its bits. Conversions round to nearest even.
struct BFloat16 {
  std::uint16_t bits = 0;
  [[nodiscard]] static BFloat16 from_float(float value) noexcept;
  [[nodiscard]] float to_float() const noexcept;
  friend bool operator==(BFloat16 a, BFloat16 b) noexcept { return a.bits == b.bits; }
};

/// `DataTypeOf<T>::value`: the DataType of a C++ element type (for the typed helpers).
template <class T>
struct DataTypeOf;
template <>
struct DataTypeOf<std::int8_t> {
  static constexpr DataType value = DataType::kInt8;
};
template <>
struct DataTypeOf<std::uint8_t> {
  static constexpr DataType value = DataType::kUInt8;
};
template <>
struct DataTypeOf<std::int32_t> {
  static constexpr DataType value = DataType::kInt32;
};
template <>
struct DataTypeOf<std::int64_t> {
  static constexpr DataType value = DataType::kInt64;
};
template <>
struct DataTypeOf<Float16> {
  static constexpr DataType value = DataType::kFloat16;
};
template <>
struct DataTypeOf<BFloat16> {
  static constexpr DataType value = DataType::kBFloat16;
};
template <>
struct DataTypeOf<float> {
  static constexpr DataType value = DataType::kFloat32;
};
template <>
struct DataTypeOf<double> {
  static constexpr DataType value = DataType::kFloat64;
};

/// Default time limit for bootstrap (rendezvous, NCCL init) and NCCL completion waits; the
/// same 10 minutes as PyTorch's NCCL process group.
inline constexpr std::chrono::milliseconds kDefaultTimeout{std::chrono::minutes(10)};

/// Options common to every way of creating a communicator.
struct CommOptions {
  /// Buffers the communicator accepts (see MemoryKind).
  MemoryKind memory = MemoryKind::kHost;
  /// Backend to use; unset: MPI for host memory, NCCL for CUDA memory. init_from_env also reads
  /// TRAINER_COLLECTIVES_BACKEND (`mpi` or `nccl`) when this is unset.
  std::optional<Backend> backend;
  /// Limit for bootstrap steps (TCP rendezvous, NCCL init), for NCCL completion waits, and for
  /// each wait of the MPI backend's all_reduce when all ranks share one node (kTimeout; that
  /// communicator's all_reduce is refused afterwards). Other MPI collectives cannot be
  /// interrupted; a dead MPI peer is detected by mpirun.
  std::chrono::milliseconds timeout = kDefaultTimeout;
  /// CUDA device ordinal; -1: local_rank modulo the number of visible devices.
  int device = -1;
  /// A `cudaStream_t` to enqueue NCCL work on (borrowed); nullptr: the communicator creates
  /// its own non-blocking stream.
  void* cuda_stream = nullptr;
};

/// How a process found its place in the job; the result of reading the environment.
struct BootstrapPlan {
  enum class Method : int {
    kMpi = 0,       ///< started by mpirun: MPI_Init, ids broadcast over MPI
    kTcpStore = 1,  ///< torch-style env: rendezvous through the TCP store
  };
  Method method = Method::kMpi;
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  int local_size = 1;
  std::string store_host;          ///< kTcpStore: where rank 0 listens
  std::uint16_t store_port = 0;    ///< kTcpStore: port of our store (see docs/collectives.md)
  std::string source;              ///< which variables decided: "mpirun", "torchrun", "PET"
  std::optional<Backend> backend;  ///< TRAINER_COLLECTIVES_BACKEND, if set
  /// kTcpStore: the job's rendezvous secret (TRAINER_RENDEZVOUS_SECRET, at least
  /// kMinRendezvousSecretBytes long); std::nullopt when unset, and the store then falls back
  /// to a key derived from the store address (see RendezvousOptions::secret).
  std::optional<std::string> store_secret;
};

/// Looks an environment variable up; std::nullopt when unset. Injected for tests.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
/// The process environment (std::getenv).
[[nodiscard]] EnvLookup process_env();

/// Reads the environment and decides how to bootstrap (no side effects). Precedence:
/// 1. mpirun (OMPI_COMM_WORLD_SIZE/RANK/LOCAL_RANK/LOCAL_SIZE) -> kMpi;
/// 2. torchrun (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT)
///    -> kTcpStore at MASTER_ADDR, port MASTER_PORT + 1 (torchrun's own store owns
///    MASTER_PORT) unless TRAINER_STORE_PORT is set;
/// 3. Kubeflow's PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR,
///    PET_MASTER_PORT for a binary started without torchrun -> kTcpStore at PET_MASTER_ADDR,
///    port PET_MASTER_PORT (or TRAINER_STORE_PORT); LOCAL_RANK is required when
///    PET_NPROC_PER_NODE > 1.
/// Rows 2 and 3 also read TRAINER_RENDEZVOUS_SECRET (BootstrapPlan::store_secret).
/// None of them: kInvalidArgument. Malformed values: kInvalidArgument naming the variable
/// (a secret's value is never echoed).
[[nodiscard]] Result<BootstrapPlan> plan_from_env(const EnvLookup& env);

/// The environment variable that carries a job's rendezvous secret to every rank. A launcher
/// sets the same value in every process of one job and a fresh one per job (the local
/// executor does; on a cluster, a Secret referenced with `valueFrom.secretKeyRef`).
inline constexpr const char* kRendezvousSecretEnv = "TRAINER_RENDEZVOUS_SECRET";
/// The shortest rendezvous secret accepted (bytes).
inline constexpr std::size_t kMinRendezvousSecretBytes = 16;
/// A fresh rendezvous secret: 64 hex digits from 32 bytes of the kernel's random generator
/// (/dev/urandom through std::random_device). kInternal when it cannot be read. Inline, so a
/// launcher (the local executor in libtrainer_cpp.a) needs no link to the collectives library.
/// Thread-safe.
[[nodiscard]] inline Result<std::string> new_rendezvous_secret() {
  try {
    std::random_device source("/dev/urandom");
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(64);
    for (int word = 0; word < 8; ++word) {
      const auto bits = static_cast<std::uint32_t>(source());
      for (unsigned nibble = 0; nibble < 8; ++nibble)
        out.push_back(kHex[(bits >> (4 * nibble)) & 0xFU]);
    }
    return out;
  } catch (const std::exception& e) {
    return fail(ErrorCode::kInternal, std::string("new_rendezvous_secret: ") + e.what());
  }
}

/// Options of the TCP rendezvous.
struct RendezvousOptions {
  std::string host = "127.0.0.1";  ///< address of rank 0 (name or numeric)
  std::uint16_t port = 0;          ///< rank 0 listens here
  int rank = 0;
  int size = 1;
  std::chrono::milliseconds timeout = kDefaultTimeout;
  /// Largest blob a rank may contribute (guards rank 0 against garbage on the port).
  std::size_t max_blob_bytes = std::size_t{64} << 20U;
  /// The job's shared secret: every rank proves that it knows it (HMAC-SHA256
  /// challenge-response; the secret never crosses the wire). All ranks must pass the same
  /// value, at least kMinRendezvousSecretBytes long (kInvalidArgument otherwise).
  /// Unset: TRAINER_RENDEZVOUS_SECRET from the process environment. Empty, or unset there too:
  /// a fallback key derived from `host` and `port` (every rank must then pass the same `host`
  /// text). The fallback keeps out stray processes and other jobs' ranks, but anyone who knows
  /// the job's address can compute it: it is no protection against a deliberate attacker.
  std::optional<std::string> secret;
  /// Rank 0 reports each dropped peer here (one line: who, and why); unset: standard error,
  /// prefixed "libtrainer: ". At most 16 lines per round, then a count. Called on the calling
  /// thread.
  std::function<void(const std::string& line)> log;
};

/// One round of the TCP rendezvous store: rank 0 listens on `port`, every other rank connects
/// (retrying until the timeout), each rank contributes `blob`, and every rank receives all
/// blobs indexed by rank. Every rank checks that all agree on `size` and that ranks are unique.
///
/// Peers authenticate with the job's secret (RendezvousOptions::secret) in both directions;
/// rank 0 sends nothing but its challenge to a peer that has not proved itself, and such a
/// peer can neither claim a rank nor end the round: it is dropped (and logged) on a wrong
/// proof, bad framing, a message above its size limit, or after 5 s without authenticating.
/// Rank 0 serves all connections at once, so a slow or silent peer delays nobody. Messages
/// are authenticated, not encrypted.
///
/// Errors: kTimeout (a rank never joined: the message names the missing ranks), kInvalid
/// (world-size disagreement, duplicate or out-of-range rank, reported to every rank; a rank
/// whose secret differs from rank 0's), kLimit (a blob above max_blob_bytes, reported to every
/// rank), kIo (socket errors, a reply that fails its integrity check), kInvalidArgument (bad
/// options, a secret shorter than kMinRendezvousSecretBytes).
[[nodiscard]] Result<std::vector<std::string>> tcp_rendezvous(const RendezvousOptions& options,
                                                              std::string_view blob);

/// True when a CUDA device is usable by this process. The first call looks for the device
/// nodes (/dev/nvidiactl, /dev/dxg) and only then asks the CUDA runtime
/// (cudaGetDeviceCount); the answer is cached. Always false in builds without CUDA.
[[nodiscard]] bool cuda_available() noexcept;
/// Backends compiled into this build.
[[nodiscard]] bool backend_compiled(Backend backend) noexcept;

namespace detail {
class CommImpl;
}

/// A group of processes that run collectives together.
///
/// Thread class: movable (one thread at a time). Every operation is collective over the group
/// (except send/recv) and must be called in the same order on every rank.
///
/// Buffers are `(const void* send, void* recv, count, DataType)`; `count` is in elements.
/// In-place: pass `send == recv` for all_reduce and broadcast; for all_gather pass
/// `send == recv + rank * count * size_of(type)` and for reduce_scatter pass
/// `recv == send + rank * recv_count * size_of(type)` (NCCL's convention). Zero counts are
/// valid no-ops that still synchronise nothing; null pointers are allowed only with count 0.
///
/// Completion: MPI operations are complete on return. NCCL operations are enqueued on the
/// communicator's CUDA stream and complete asynchronously; `synchronize()` waits (with the
/// timeout) and reports asynchronous NCCL errors.
///
/// MPI lifetime: if MPI is already initialised when the first MPI communicator is created, the
/// caller owns MPI (we never finalize it). Otherwise the library calls MPI_Init_thread and
/// registers MPI_Finalize with std::atexit, so MPI stays usable for later communicators and is
/// finalised at process exit (skipped if someone finalised it already).
class Communicator {
 public:
  /// MPI communicator over all processes of MPI_COMM_WORLD (duplicated, MPI_ERRORS_RETURN).
  /// With options.backend == kNccl: an NCCL communicator whose unique id is broadcast over MPI.
  [[nodiscard]] static Result<Communicator> create_mpi(const CommOptions& options = {});
  /// NCCL communicator for callers that bootstrap themselves: ranks rendezvous through the TCP
  /// store at `store` (rank 0 listens). Fails with kUnsupported (on every rank) when a rank has
  /// no GPU, and with kUnsupported in builds without NCCL.
  [[nodiscard]] static Result<Communicator> create_nccl(const RendezvousOptions& store,
                                                        int local_rank, int local_size,
                                                        const CommOptions& options = {});
  /// Reads the environment (plan_from_env) and creates the matching communicator.
  [[nodiscard]] static Result<Communicator> init_from_env(const CommOptions& options = {});
  /// Same, with an injected environment.
  [[nodiscard]] static Result<Communicator> init_from_env(const EnvLookup& env,
                                                          const CommOptions& options);

  Communicator(Communicator&& other) noexcept;
  Communicator& operator=(Communicator&& other) noexcept;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  /// Releases the communicator (NCCL: finalize, or abort after an error). Never blocks on
  /// MPI_Finalize; see the class comment.
  ~Communicator();

  [[nodiscard]] int rank() const noexcept;
  [[nodiscard]] int size() const noexcept;
  [[nodiscard]] int local_rank() const noexcept;
  [[nodiscard]] int local_size() const noexcept;
  [[nodiscard]] Backend backend() const noexcept;
  /// "mpi" or "nccl".
  [[nodiscard]] const char* backend_name() const noexcept;
  [[nodiscard]] MemoryKind memory() const noexcept;
  /// False for a moved-from communicator.
  [[nodiscard]] bool valid() const noexcept { return impl_ != nullptr; }

  [[nodiscard]] Result<void> all_reduce(const void* send, void* recv, std::size_t count,
                                        DataType type, ReduceOp op);
  /// `send` is read on `root` only; every rank receives into `recv`.
  [[nodiscard]] Result<void> broadcast(const void* send, void* recv, std::size_t count,
                                       DataType type, int root);
  /// Every rank contributes `send_count` elements; `recv` holds size() * send_count, ordered
  /// by rank.
  [[nodiscard]] Result<void> all_gather(const void* send, void* recv, std::size_t send_count,
                                        DataType type);
  /// `send` holds size() * recv_count elements; rank r receives the reduction of block r.
  [[nodiscard]] Result<void> reduce_scatter(const void* send, void* recv, std::size_t recv_count,
                                            DataType type, ReduceOp op);
  [[nodiscard]] Result<void> barrier();
  /// Blocking point-to-point (MPI: complete on return; NCCL: enqueued, see synchronize()).
  [[nodiscard]] Result<void> send(const void* buf, std::size_t count, DataType type, int peer);
  [[nodiscard]] Result<void> recv(void* buf, std::size_t count, DataType type, int peer);
  /// Waits for the enqueued work (NCCL) up to the timeout; kTimeout aborts the communicator.
  /// A no-op on MPI communicators.
  [[nodiscard]] Result<void> synchronize();

  // Typed helpers.
  template <class T>
  [[nodiscard]] Result<void> all_reduce(const T* send, T* recv, std::size_t count, ReduceOp op) {
    return all_reduce(static_cast<const void*>(send), static_cast<void*>(recv), count,
                      DataTypeOf<T>::value, op);
  }
  template <class T>
  [[nodiscard]] Result<void> broadcast(const T* send, T* recv, std::size_t count, int root) {
    return broadcast(static_cast<const void*>(send), static_cast<void*>(recv), count,
                     DataTypeOf<T>::value, root);
  }
  template <class T>
  [[nodiscard]] Result<void> all_gather(const T* send, T* recv, std::size_t send_count) {
    return all_gather(static_cast<const void*>(send), static_cast<void*>(recv), send_count,
                      DataTypeOf<T>::value);
  }
  template <class T>
  [[nodiscard]] Result<void> reduce_scatter(const T* send, T* recv, std::size_t recv_count,
                                            ReduceOp op) {
    return reduce_scatter(static_cast<const void*>(send), static_cast<void*>(recv), recv_count,
                          DataTypeOf<T>::value, op);
  }

 private:
  explicit Communicator(std::unique_ptr<detail::CommImpl> impl) noexcept;
  std::unique_ptr<detail::CommImpl> impl_;
};

}  // namespace trainer::collectives
