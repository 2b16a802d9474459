// SPDX-License-Identifier: Apache-2.0
// plan_from_env: which variables decide rank, size and the rendezvous address. The rules are
// documented in docs/collectives.md ("Bootstrap from the environment").
#include "collectives/tcp_store.hpp"
#include "trainer/collectives.hpp"

#include <cerrno>
#include <cstdlib>
#include <string>

namespace trainer::collectives {
namespace {

tl::unexpected<Error> bad(const std::string& message) {
  return fail(ErrorCode::kInvalidArgument, message);
}

// An unset or empty variable counts as unset.
std::optional<std::string> get(const EnvLookup& env, const std::string& name) {
  auto v = env(name);
  if (v && v->empty()) return std::nullopt;
  return v;
}

Result<long> parse_long(const std::string& name, const std::string& value, long min, long max) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(value.c_str(), &end, 10);
  if (errno != 0 || end == value.c_str() || *end != '\0' || v < min || v > max) {
    return bad(name + "=\"" + value + "\": expected an integer in [" + std::to_string(min) + ", " +
               std::to_string(max) + "]");
  }
  return v;
}

Result<int> require_int(const EnvLookup& env, const std::string& name, long min, long max) {
  auto v = get(env, name);
  if (!v) return bad(name + " is not set");
  auto n = parse_long(name, *v, min, max);
  if (!n) return tl::unexpected(n.error());
  return static_cast<int>(*n);
}

Result<int> optional_int(const EnvLookup& env, const std::string& name, long min, long max,
                         int fallback) {
  if (!get(env, name)) return fallback;
  return require_int(env, name, min, max);
}

Result<std::uint16_t> port_from(const EnvLookup& env, const std::string& name) {
  auto p = require_int(env, name, 1, 65535);
  if (!p) return tl::unexpected(p.error());
  return static_cast<std::uint16_t>(*p);
}

constexpr long kMaxWorld = 1L << 24;

#define TRY_ASSIGN(var, expr)                           \
  auto var##_r = (expr);                                \
  if (!var##_r) return tl::unexpected(var##_r.error()); \
  auto var = *var##_r

}  // namespace

}  // namespace trainer::collectives

namespace trainer::collectives::detail {

Result<std::optional<std::string>> rendezvous_secret_from(const EnvLookup& env) {
  auto secret = get(env, kRendezvousSecretEnv);
  if (secret && secret->size() < kMinRendezvousSecretBytes) {
    return bad(std::string(kRendezvousSecretEnv) + " is " + std::to_string(secret->size()) +
               " bytes long; at least " + std::to_string(kMinRendezvousSecretBytes) +
               " are required (e.g. the output of `openssl rand -hex 32`)");
  }
  return secret;
}

}  // namespace trainer::collectives::detail

namespace trainer::collectives {

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());  // NOLINT(concurrency-mt-unsafe)
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Result<BootstrapPlan> plan_from_env(const EnvLookup& env) {
  BootstrapPlan plan;
  if (auto b = get(env, "TRAINER_COLLECTIVES_BACKEND")) {
    if (*b == "mpi") {
      plan.backend = Backend::kMpi;
    } else if (*b == "nccl") {
      plan.backend = Backend::kNccl;
    } else {
      return bad("TRAINER_COLLECTIVES_BACKEND=\"" + *b + "\": expected \"mpi\" or \"nccl\"");
    }
  }
  std::optional<std::uint16_t> store_port_override;
  if (get(env, "TRAINER_STORE_PORT")) {
    TRY_ASSIGN(p, port_from(env, "TRAINER_STORE_PORT"));
    store_port_override = p;
  }

  // 1. mpirun (Open MPI).
  if (get(env, "OMPI_COMM_WORLD_SIZE")) {
    TRY_ASSIGN(size, require_int(env, "OMPI_COMM_WORLD_SIZE", 1, kMaxWorld));
    TRY_ASSIGN(rank, require_int(env, "OMPI_COMM_WORLD_RANK", 0, size - 1));
    TRY_ASSIGN(local_size, optional_int(env, "OMPI_COMM_WORLD_LOCAL_SIZE", 1, size, 1));
    TRY_ASSIGN(local_rank, optional_int(env, "OMPI_COMM_WORLD_LOCAL_RANK", 0, local_size - 1, 0));
    plan.method = BootstrapPlan::Method::kMpi;
    plan.rank = rank;
    plan.size = size;
    plan.local_rank = local_rank;
    plan.local_size = local_size;
    plan.source = "mpirun";
    return plan;
  }

  // 2. torchrun's worker variables (or anything that sets RANK/WORLD_SIZE like it).
  if (get(env, "WORLD_SIZE") || get(env, "RANK")) {
    TRY_ASSIGN(size, require_int(env, "WORLD_SIZE", 1, kMaxWorld));
    TRY_ASSIGN(rank, require_int(env, "RANK", 0, size - 1));
    TRY_ASSIGN(local_size, optional_int(env, "LOCAL_WORLD_SIZE", 1, size, 1));
    TRY_ASSIGN(local_rank, optional_int(env, "LOCAL_RANK", 0, local_size - 1, 0));
    auto addr = get(env, "MASTER_ADDR");
    if (!addr) return bad("MASTER_ADDR is not set (RANK/WORLD_SIZE are)");
    TRY_ASSIGN(master_port, port_from(env, "MASTER_PORT"));
    const bool under_torchrun =
        get(env, "TORCHELASTIC_RUN_ID") || get(env, "TORCHELASTIC_USE_AGENT_STORE") ||
        get(env, "TORCHELASTIC_RESTART_COUNT") || get(env, "TORCHELASTIC_MAX_RESTARTS");
    plan.method = BootstrapPlan::Method::kTcpStore;
    plan.rank = rank;
    plan.size = size;
    plan.local_rank = local_rank;
    plan.local_size = local_size;
    TRY_ASSIGN(secret, detail::rendezvous_secret_from(env));
    plan.store_secret = std::move(secret);
    plan.store_host = *addr;
    plan.source = under_torchrun ? "torchrun" : "RANK/WORLD_SIZE";
    if (store_port_override) {
      plan.store_port = *store_port_override;
    } else if (under_torchrun) {
      // torchrun's agent already serves its TCPStore on MASTER_PORT: we take the next port.
      if (master_port == 65535) {
        return bad(
            "MASTER_PORT=65535 leaves no port for the libtrainer store (MASTER_PORT + 1); "
            "set TRAINER_STORE_PORT");
      }
      plan.store_port = static_cast<std::uint16_t>(master_port + 1);
    } else {
      plan.store_port = master_port;
    }
    return plan;
  }

  // 3. Kubeflow's torch plugin variables for a binary started without torchrun.
  if (get(env, "PET_NNODES")) {
    TRY_ASSIGN(nnodes, require_int(env, "PET_NNODES", 1, kMaxWorld));
    auto nproc_text = get(env, "PET_NPROC_PER_NODE");
    int nproc = 1;
    if (nproc_text && *nproc_text == "auto") {
      auto lws = get(env, "LOCAL_WORLD_SIZE");
      if (!lws) {
        return bad(
            "PET_NPROC_PER_NODE=auto: the process count is only known to torchrun; set "
            "LOCAL_WORLD_SIZE or a number");
      }
      TRY_ASSIGN(n, require_int(env, "LOCAL_WORLD_SIZE", 1, kMaxWorld));
      nproc = n;
    } else if (nproc_text) {
      TRY_ASSIGN(n, parse_long("PET_NPROC_PER_NODE", *nproc_text, 1, kMaxWorld));
      nproc = static_cast<int>(n);
    }
    if (static_cast<long>(nnodes) * nproc > kMaxWorld) return bad("PET_NNODES * nproc too large");
    TRY_ASSIGN(node_rank, require_int(env, "PET_NODE_RANK", 0, nnodes - 1));
    int local_rank = 0;
    if (nproc > 1) {
      if (!get(env, "LOCAL_RANK")) {
        return bad("PET_NPROC_PER_NODE=" + std::to_string(nproc) +
                   " needs LOCAL_RANK for each process of the node");
      }
      TRY_ASSIGN(lr, require_int(env, "LOCAL_RANK", 0, nproc - 1));
      local_rank = lr;
    } else {
      TRY_ASSIGN(lr, optional_int(env, "LOCAL_RANK", 0, 0, 0));
      local_rank = lr;
    }
    auto addr = get(env, "PET_MASTER_ADDR");
    if (!addr) return bad("PET_MASTER_ADDR is not set (PET_NNODES is)");
    TRY_ASSIGN(master_port, port_from(env, "PET_MASTER_PORT"));
    plan.method = BootstrapPlan::Method::kTcpStore;
    plan.size = nnodes * nproc;
    plan.rank = node_rank * nproc + local_rank;
    plan.local_rank = local_rank;
    plan.local_size = nproc;
    plan.store_host = *addr;
    plan.store_port = store_port_override.value_or(master_port);
    TRY_ASSIGN(secret, detail::rendezvous_secret_from(env));
    plan.store_secret = std::move(secret);
    plan.source = "PET";
    return plan;
  }

  return bad(
      "no distributed environment found: expected mpirun's OMPI_COMM_WORLD_*, torchrun's "
      "RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT, or Kubeflow's PET_NNODES/PET_NODE_RANK/"
      "PET_MASTER_ADDR/PET_MASTER_PORT");
}

}  // namespace trainer::collectives

#undef TRY_ASSIGN
