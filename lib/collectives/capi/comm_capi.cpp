// SPDX-License-Identifier: Apache-2.0
// trainer_comm_*: the C face of trainer::collectives::Communicator. Every body goes through the
// C ABI's exception guard; errors become owned trainer_error objects.
#include "capi/capi.hpp"
#include "trainer/collectives.hpp"

#include <string>
#include <utility>

struct trainer_comm {
  trainer::collectives::Communicator comm;
};

namespace {

namespace tc = trainer::collectives;
using trainer::capi::bad_argument;
using trainer::capi::guard;
using trainer::capi::set_error;

// NULL options mean the defaults.
trainer_status to_options(const trainer_comm_options* in, tc::CommOptions* out,
                          trainer_error** err) {
  if (in == nullptr) return TRAINER_OK;
  if (in->version != TRAINER_COMM_OPTIONS_VERSION) {
    return bad_argument(err, "trainer_comm_options.version " + std::to_string(in->version) +
                                 " is not supported (expected " +
                                 std::to_string(TRAINER_COMM_OPTIONS_VERSION) + ")");
  }
  if (in->memory != TRAINER_MEMORY_HOST && in->memory != TRAINER_MEMORY_CUDA) {
    return bad_argument(err,
                        "trainer_comm_options.memory: unknown value " + std::to_string(in->memory));
  }
  out->memory = static_cast<tc::MemoryKind>(in->memory);
  if (in->backend == TRAINER_BACKEND_MPI || in->backend == TRAINER_BACKEND_NCCL) {
    out->backend = static_cast<tc::Backend>(in->backend);
  } else if (in->backend != TRAINER_BACKEND_AUTO) {
    return bad_argument(
        err, "trainer_comm_options.backend: unknown value " + std::to_string(in->backend));
  }
  if (in->timeout_ms < 0) return bad_argument(err, "trainer_comm_options.timeout_ms < 0");
  if (in->timeout_ms > 0) out->timeout = std::chrono::milliseconds(in->timeout_ms);
  out->device = in->device;
  out->cuda_stream = in->cuda_stream;
  return TRAINER_OK;
}

trainer_status deliver(trainer::Result<tc::Communicator> made, trainer_comm** out,
                       trainer_error** err) {
  if (!made) return set_error(err, made.error());
  *out = new trainer_comm{std::move(*made)};
  return TRAINER_OK;
}

trainer_status finish(const trainer::Result<void>& r, trainer_error** err) {
  if (!r) return set_error(err, r.error());
  return TRAINER_OK;
}

}  // namespace

extern "C" {

trainer_status trainer_comm_init_from_env(const trainer_comm_options* options, trainer_comm** out,
                                          trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (out == nullptr) return bad_argument(err, "out is NULL");
    *out = nullptr;
    tc::CommOptions o;
    if (const trainer_status s = to_options(options, &o, err); s != TRAINER_OK) return s;
    return deliver(tc::Communicator::init_from_env(o), out, err);
  });
}

trainer_status trainer_comm_create_mpi(const trainer_comm_options* options, trainer_comm** out,
                                       trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (out == nullptr) return bad_argument(err, "out is NULL");
    *out = nullptr;
    tc::CommOptions o;
    if (const trainer_status s = to_options(options, &o, err); s != TRAINER_OK) return s;
    return deliver(tc::Communicator::create_mpi(o), out, err);
  });
}

trainer_status trainer_comm_create_nccl(const char* host, size_t host_len, uint16_t port, int rank,
                                        int size, int local_rank, int local_size,
                                        const trainer_comm_options* options, trainer_comm** out,
                                        trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (out == nullptr) return bad_argument(err, "out is NULL");
    *out = nullptr;
    if (host == nullptr && host_len != 0) return bad_argument(err, "host is NULL");
    tc::CommOptions o;
    o.memory = tc::MemoryKind::kCuda;
    if (const trainer_status s = to_options(options, &o, err); s != TRAINER_OK) return s;
    tc::RendezvousOptions store;
    store.host = host_len == 0 ? std::string() : std::string(host, host_len);
    store.port = port;
    store.rank = rank;
    store.size = size;
    store.timeout = o.timeout;
    return deliver(tc::Communicator::create_nccl(store, local_rank, local_size, o), out, err);
  });
}

void trainer_comm_free(trainer_comm* comm) {
  trainer::capi::guard_void([&] { delete comm; });
}

int trainer_comm_rank(const trainer_comm* comm) {
  return comm ? comm->comm.rank() : -1;
}
int trainer_comm_size(const trainer_comm* comm) {
  return comm ? comm->comm.size() : 0;
}
int trainer_comm_local_rank(const trainer_comm* comm) {
  return comm ? comm->comm.local_rank() : -1;
}
int trainer_comm_local_size(const trainer_comm* comm) {
  return comm ? comm->comm.local_size() : 0;
}
const char* trainer_comm_backend_name(const trainer_comm* comm) {
  return comm ? comm->comm.backend_name() : "";
}

// dtype and op values are range-checked by the Communicator (TRAINER_E_INVALID_ARGUMENT).
trainer_status trainer_comm_all_reduce(trainer_comm* comm, const void* send, void* recv,
                                       size_t count, int dtype, int op, trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (comm == nullptr) return bad_argument(err, "comm is NULL");
    return finish(comm->comm.all_reduce(send, recv, count, static_cast<tc::DataType>(dtype),
                                        static_cast<tc::ReduceOp>(op)),
                  err);
  });
}

trainer_status trainer_comm_broadcast(trainer_comm* comm, const void* send, void* recv,
                                      size_t count, int dtype, int root, trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (comm == nullptr) return bad_argument(err, "comm is NULL");
    return finish(comm->comm.broadcast(send, recv, count, static_cast<tc::DataType>(dtype), root),
                  err);
  });
}

trainer_status trainer_comm_all_gather(trainer_comm* comm, const void* send, void* recv,
                                       size_t send_count, int dtype, trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (comm == nullptr) return bad_argument(err, "comm is NULL");
    return finish(comm->comm.all_gather(send, recv, send_count, static_cast<tc::DataType>(dtype)),
                  err);
  });
}

trainer_status trainer_comm_reduce_scatter(trainer_comm* comm, const void* send, void* recv,
                                           size_t recv_count, int dtype, int op,
                                           trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (comm == nullptr) return bad_argument(err, "comm is NULL");
    return finish(
        comm->comm.reduce_scatter(send, recv, recv_count, static_cast<tc::DataType>(dtype),
                                  static_cast<tc::ReduceOp>(op)),
        err);
  });
}

trainer_status trainer_comm_barrier(trainer_comm* comm, trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (comm == nullptr) return bad_argument(err, "comm is NULL");
    return finish(comm->comm.barrier(), err);
  });
}

trainer_status trainer_comm_send(trainer_comm* comm, const void* buf, size_t count, int dtype,
                                 int peer, trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (comm == nullptr) return bad_argument(err, "comm is NULL");
    return finish(comm->comm.send(buf, count, static_cast<tc::DataType>(dtype), peer), err);
  });
}

trainer_status trainer_comm_recv(trainer_comm* comm, void* buf, size_t count, int dtype, int peer,
                                 trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (comm == nullptr) return bad_argument(err, "comm is NULL");
    return finish(comm->comm.recv(buf, count, static_cast<tc::DataType>(dtype), peer), err);
  });
}

trainer_status trainer_comm_synchronize(trainer_comm* comm, trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (comm == nullptr) return bad_argument(err, "comm is NULL");
    return finish(comm->comm.synchronize(), err);
  });
}

}  // extern "C"
