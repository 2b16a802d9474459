// SPDX-License-Identifier: Apache-2.0
// Communicator: argument checks shared by every backend, dispatch, and the factories.
#include "collectives/comm_impl.hpp"

#include <cstring>
#include <string>
#include <utility>

namespace trainer::collectives {

using detail::CommImpl;
using detail::CommImplPtr;

namespace {

bool valid_type(DataType type) noexcept {
  const int t = static_cast<int>(type);
  return t >= 0 && t <= static_cast<int>(DataType::kFloat64);
}

bool valid_op(ReduceOp op) noexcept {
  const int o = static_cast<int>(op);
  return o >= 0 && o <= static_cast<int>(ReduceOp::kAvg);
}

tl::unexpected<Error> invalid(std::string message) {
  return fail(ErrorCode::kInvalidArgument, std::move(message));
}

// The checks every operation shares; kept small and inline: they are on the hot path.
inline Result<void> check(const CommImpl* impl, const char* what, DataType type, std::size_t count,
                          const void* a, const void* b) {
  if (impl == nullptr) return invalid(std::string(what) + ": communicator was moved from");
  if (!valid_type(type)) {
    return invalid(std::string(what) + ": unknown data type " +
                   std::to_string(static_cast<int>(type)));
  }
  if (count != 0 && (a == nullptr || b == nullptr)) {
    return invalid(std::string(what) + ": null buffer with count " + std::to_string(count));
  }
  return {};
}

inline Result<void> check_rank(const CommImpl* impl, const char* what, const char* name, int r) {
  if (r < 0 || r >= impl->size) {
    return invalid(std::string(what) + ": " + name + " " + std::to_string(r) + " is outside [0, " +
                   std::to_string(impl->size) + ")");
  }
  return {};
}

Backend choose_backend(const CommOptions& options, std::optional<Backend> from_env) {
  if (options.backend) return *options.backend;
  if (from_env) return *from_env;
  return options.memory == MemoryKind::kCuda ? Backend::kNccl : Backend::kMpi;
}

Result<void> check_options(const CommOptions& options, Backend backend) {
  if (options.timeout.count() <= 0) return invalid("timeout must be positive");
  if (backend == Backend::kNccl && options.memory != MemoryKind::kCuda) {
    return invalid(
        "the NCCL backend works on CUDA device memory only (CommOptions::memory = "
        "MemoryKind::kCuda); use the MPI backend for host buffers");
  }
  return {};
}

std::string ranks_text(const std::vector<int>& ranks) {
  std::string s;
  for (const int r : ranks) s += (s.empty() ? "" : ", ") + std::to_string(r);
  return "[" + s + "]";
}

}  // namespace

bool backend_compiled(Backend backend) noexcept {
  switch (backend) {
    case Backend::kMpi:
#if defined(TRAINER_HAVE_MPI)
      return true;
#else
      return false;
#endif
    case Backend::kNccl:
#if defined(TRAINER_HAVE_NCCL)
      return true;
#else
      return false;
#endif
  }
  return false;
}

Communicator::Communicator(std::unique_ptr<CommImpl> impl) noexcept : impl_(std::move(impl)) {}
Communicator::Communicator(Communicator&& other) noexcept = default;
Communicator& Communicator::operator=(Communicator&& other) noexcept = default;
Communicator::~Communicator() = default;

int Communicator::rank() const noexcept {
  return impl_ ? impl_->rank : -1;
}
int Communicator::size() const noexcept {
  return impl_ ? impl_->size : 0;
}
int Communicator::local_rank() const noexcept {
  return impl_ ? impl_->local_rank : -1;
}
int Communicator::local_size() const noexcept {
  return impl_ ? impl_->local_size : 0;
}
Backend Communicator::backend() const noexcept {
  return impl_ ? impl_->backend : Backend::kMpi;
}
const char* Communicator::backend_name() const noexcept {
  return impl_ ? to_string(impl_->backend) : "";
}
MemoryKind Communicator::memory() const noexcept {
  return impl_ ? impl_->memory : MemoryKind::kHost;
}

Result<void> Communicator::all_reduce(const void* send, void* recv, std::size_t count,
                                      DataType type, ReduceOp op) {
  if (auto ok = check(impl_.get(), "all_reduce", type, count, send, recv); !ok) return ok;
  if (!valid_op(op)) return invalid("all_reduce: unknown reduction");
  return impl_->all_reduce(send, recv, count, type, op);
}

Result<void> Communicator::broadcast(const void* send, void* recv, std::size_t count, DataType type,
                                     int root) {
  if (auto ok = check(impl_.get(), "broadcast", type, count, recv, recv); !ok) return ok;
  if (auto ok = check_rank(impl_.get(), "broadcast", "root", root); !ok) return ok;
  if (count != 0 && root == impl_->rank && send == nullptr) {
    return invalid("broadcast: null send buffer on the root");
  }
  return impl_->broadcast(send, recv, count, type, root);
}

Result<void> Communicator::all_gather(const void* send, void* recv, std::size_t send_count,
                                      DataType type) {
  if (auto ok = check(impl_.get(), "all_gather", type, send_count, send, recv); !ok) return ok;
  return impl_->all_gather(send, recv, send_count, type);
}

Result<void> Communicator::reduce_scatter(const void* send, void* recv, std::size_t recv_count,
                                          DataType type, ReduceOp op) {
  if (auto ok = check(impl_.get(), "reduce_scatter", type, recv_count, send, recv); !ok) {
    return ok;
  }
  if (!valid_op(op)) return invalid("reduce_scatter: unknown reduction");
  return impl_->reduce_scatter(send, recv, recv_count, type, op);
}

Result<void> Communicator::barrier() {
  if (!impl_) return invalid("barrier: communicator was moved from");
  return impl_->barrier();
}

Result<void> Communicator::send(const void* buf, std::size_t count, DataType type, int peer) {
  if (auto ok = check(impl_.get(), "send", type, count, buf, buf); !ok) return ok;
  if (auto ok = check_rank(impl_.get(), "send", "peer", peer); !ok) return ok;
  return impl_->send(buf, count, type, peer);
}

Result<void> Communicator::recv(void* buf, std::size_t count, DataType type, int peer) {
  if (auto ok = check(impl_.get(), "recv", type, count, buf, buf); !ok) return ok;
  if (auto ok = check_rank(impl_.get(), "recv", "peer", peer); !ok) return ok;
  return impl_->recv(buf, count, type, peer);
}

Result<void> Communicator::synchronize() {
  if (!impl_) return invalid("synchronize: communicator was moved from");
  return impl_->synchronize();
}

// ---- factories -----------------------------------------------------------------------------

Result<Communicator> Communicator::create_mpi(const CommOptions& options) {
  const Backend backend = choose_backend(options, std::nullopt);
  if (auto ok = check_options(options, backend); !ok) return tl::unexpected(ok.error());
#if defined(TRAINER_HAVE_MPI)
  if (backend == Backend::kMpi) {
    auto impl = detail::make_mpi_comm(options);
    if (!impl) return tl::unexpected(impl.error());
    return Communicator(std::move(*impl));
  }
#if defined(TRAINER_HAVE_NCCL)
  std::string id(detail::kNcclIdBytes, '\0');
  detail::MpiWorld world;
  auto all_have_gpu = detail::mpi_bootstrap_exchange(cuda_available(), detail::nccl_unique_id,
                                                     id.data(), id.size(), &world);
  if (!all_have_gpu) return tl::unexpected(all_have_gpu.error());
  if (!*all_have_gpu) {
    return fail(ErrorCode::kUnsupported,
                "NCCL backend: no CUDA device on at least one rank (rank " +
                    std::to_string(world.rank) + (cuda_available() ? " has one" : " has none") +
                    ")");
  }
  auto impl = detail::make_nccl_comm(id.data(), world.rank, world.size, world.local_rank,
                                     world.local_size, options);
  if (!impl) return tl::unexpected(impl.error());
  return Communicator(std::move(*impl));
#else
  return fail(ErrorCode::kUnsupported, "NCCL backend not compiled in (TRAINER_WITH_NCCL)");
#endif
#else
  return fail(ErrorCode::kUnsupported, std::string(to_string(backend)) +
                                           " over MPI: MPI backend not compiled in "
                                           "(TRAINER_WITH_MPI)");
#endif
}

Result<Communicator> Communicator::create_nccl(const RendezvousOptions& store, int local_rank,
                                               int local_size, const CommOptions& options) {
  CommOptions opts = options;
  opts.backend = Backend::kNccl;
  opts.memory = MemoryKind::kCuda;
  if (auto ok = check_options(opts, Backend::kNccl); !ok) return tl::unexpected(ok.error());
  if (local_rank < 0 || local_size < 1 || local_rank >= local_size) {
    return invalid("create_nccl: local rank " + std::to_string(local_rank) +
                   " outside local size " + std::to_string(local_size));
  }
#if defined(TRAINER_HAVE_NCCL)
  // Every rank learns which ranks lack a GPU, so they all fail the same way, fast.
  const bool have_gpu = cuda_available();
  std::string blob(1, have_gpu ? '\1' : '\0');
  if (store.rank == 0 && have_gpu) {
    blob.resize(1 + detail::kNcclIdBytes);
    if (auto ok = detail::nccl_unique_id(&blob[1]); !ok) blob.resize(1);
  }
  auto blobs = tcp_rendezvous(store, blob);
  if (!blobs) return tl::unexpected(blobs.error());
  std::vector<int> without_gpu;
  for (std::size_t r = 0; r < blobs->size(); ++r) {
    const std::string& b = (*blobs)[r];
    if (b.empty() || b[0] != '\1') without_gpu.push_back(static_cast<int>(r));
  }
  if (!without_gpu.empty()) {
    return fail(ErrorCode::kUnsupported,
                "NCCL backend: no usable CUDA device on rank(s) " + ranks_text(without_gpu));
  }
  const std::string& root = (*blobs)[0];
  if (root.size() != 1 + detail::kNcclIdBytes) {
    return fail(ErrorCode::kIo, "NCCL backend: rank 0 could not create the NCCL unique id");
  }
  auto impl =
      detail::make_nccl_comm(root.data() + 1, store.rank, store.size, local_rank, local_size, opts);
  if (!impl) return tl::unexpected(impl.error());
  return Communicator(std::move(*impl));
#else
  (void)store;
  (void)ranks_text;
  return fail(ErrorCode::kUnsupported, "NCCL backend not compiled in (TRAINER_WITH_NCCL)");
#endif
}

Result<Communicator> Communicator::init_from_env(const CommOptions& options) {
  return init_from_env(process_env(), options);
}

Result<Communicator> Communicator::init_from_env(const EnvLookup& env, const CommOptions& options) {
  auto plan = plan_from_env(env);
  if (!plan) return tl::unexpected(plan.error());
  CommOptions opts = options;
  opts.backend = choose_backend(options, plan->backend);
  if (plan->method == BootstrapPlan::Method::kMpi) return create_mpi(opts);
  if (*opts.backend == Backend::kMpi) {
    return fail(ErrorCode::kUnsupported,
                "the MPI backend needs processes started by mpirun; this process was started "
                "through " +
                    plan->source + " (use CUDA memory with the NCCL backend)");
  }
  RendezvousOptions store;
  store.host = plan->store_host;
  store.port = plan->store_port;
  store.rank = plan->rank;
  store.size = plan->size;
  store.timeout = opts.timeout;
  store.secret = plan->store_secret.value_or(std::string());  // from `env`, not the process's
  return create_nccl(store, plan->local_rank, plan->local_size, opts);
}

}  // namespace trainer::collectives
