/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libtrainer C ABI, collectives section (trainer_comm_*). Included by trainer.h; the
 * conventions stated at the top of trainer.h apply.
 *
 * A trainer_comm is a group of processes running collectives together over MPI (host memory)
 * or NCCL (CUDA device memory); see docs/collectives.md for the environment variables that
 * trainer_comm_init_from_env() reads and the exact semantics of every operation. These symbols
 * exist in every build; a backend that is compiled out makes the creating call return
 * TRAINER_E_UNSUPPORTED (and is absent from trainer_features()).
 */
#ifndef TRAINER_COLLECTIVES_H
#define TRAINER_COLLECTIVES_H

#include "trainer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types (values of trainer::collectives::DataType). @since 0.1 */
#define TRAINER_DTYPE_INT8 0
#define TRAINER_DTYPE_UINT8 1
#define TRAINER_DTYPE_INT32 2
#define TRAINER_DTYPE_INT64 3
#define TRAINER_DTYPE_FLOAT16 4  /**< IEEE binary16 */
#define TRAINER_DTYPE_BFLOAT16 5 /**< bfloat16 */
#define TRAINER_DTYPE_FLOAT32 6
#define TRAINER_DTYPE_FLOAT64 7

/* Reductions. AVG = sum / size; integer AVG truncates toward zero. @since 0.1 */
#define TRAINER_REDUCE_SUM 0
#define TRAINER_REDUCE_PROD 1
#define TRAINER_REDUCE_MIN 2
#define TRAINER_REDUCE_MAX 3
#define TRAINER_REDUCE_AVG 4

/* Backends. AUTO: MPI for host memory, NCCL for CUDA memory. @since 0.1 */
#define TRAINER_BACKEND_AUTO (-1)
#define TRAINER_BACKEND_MPI 0
#define TRAINER_BACKEND_NCCL 1

/* Buffer memory a communicator accepts. @since 0.1 */
#define TRAINER_MEMORY_HOST 0
#define TRAINER_MEMORY_CUDA 1

/** Options of the creating calls (NULL means TRAINER_COMM_OPTIONS_INIT). @since 0.1 */
typedef struct trainer_comm_options {
  uint32_t version;   /**< TRAINER_COMM_OPTIONS_VERSION */
  int32_t memory;     /**< TRAINER_MEMORY_* */
  int32_t backend;    /**< TRAINER_BACKEND_*; AUTO also consults TRAINER_COLLECTIVES_BACKEND */
  int64_t timeout_ms; /**< wait limit: bootstrap, NCCL, one-node MPI all_reduce; 0: 10 min */
  int32_t device;     /**< CUDA device; -1: local rank modulo the visible devices */
  void* cuda_stream;  /**< borrowed cudaStream_t for NCCL work; NULL: the communicator's own */
} trainer_comm_options;

#define TRAINER_COMM_OPTIONS_VERSION 1
#define TRAINER_COMM_OPTIONS_INIT \
  { TRAINER_COMM_OPTIONS_VERSION, TRAINER_MEMORY_HOST, TRAINER_BACKEND_AUTO, 0, -1, NULL }

/** A communicator. Movable: any thread, one at a time. Every operation is collective over
 *  the group (except send/recv) and must be called in the same order on every rank.
 *  Freed with trainer_comm_free(). @since 0.1 */
typedef struct trainer_comm trainer_comm;

/** Creates a communicator from the environment: mpirun's OMPI_COMM_WORLD_* (MPI), torchrun's
 *  RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT or Kubeflow's PET_* (NCCL through the TCP store).
 *  Through the TCP store, every rank proves it knows TRAINER_RENDEZVOUS_SECRET (the same value,
 *  at least 16 bytes, in every process of the job; without it, a key derived from the store
 *  address, which stops stray processes but not an attacker: docs/collectives.md, "Who may
 *  join"). `*out` receives the owned communicator.
 *  Errors: TRAINER_E_INVALID_ARGUMENT (malformed or short variables, named in the message),
 *  TRAINER_E_INVALID (ranks disagree on the world size or the secret, a rank claimed twice),
 *  TRAINER_E_TIMEOUT, TRAINER_E_IO, TRAINER_E_UNSUPPORTED (a rank without a GPU, a backend
 *  compiled out). Thread-safety: any thread; one call per process at a time. @since 0.1 */
TRAINER_API trainer_status trainer_comm_init_from_env(const trainer_comm_options* options,
                                                      TRAINER_OWN trainer_comm** out,
                                                      trainer_error** err);
/** Creates a communicator over all processes of MPI_COMM_WORLD (MPI initialised if needed and
 *  then finalised at exit; never finalised when the caller initialised it). @since 0.1 */
TRAINER_API trainer_status trainer_comm_create_mpi(const trainer_comm_options* options,
                                                   TRAINER_OWN trainer_comm** out,
                                                   trainer_error** err);
/** Creates an NCCL communicator; ranks rendezvous through the TCP store at (host, port),
 *  where rank 0 listens, authenticated with TRAINER_RENDEZVOUS_SECRET from the process
 *  environment (as trainer_comm_init_from_env; without it, a key derived from `host` and
 *  `port`, so every rank must pass the same host text). `host` is borrowed for the call.
 *  TRAINER_E_UNSUPPORTED on every rank when a rank has no GPU. @since 0.1 */
TRAINER_API trainer_status trainer_comm_create_nccl(const char* host, size_t host_len,
                                                    uint16_t port, int rank, int size,
                                                    int local_rank, int local_size,
                                                    const trainer_comm_options* options,
                                                    TRAINER_OWN trainer_comm** out,
                                                    trainer_error** err);
/** Frees a communicator. NULL is a no-op. @since 0.1 */
TRAINER_API void trainer_comm_free(TRAINER_OWN trainer_comm* comm);

/** Rank, size, local rank and local size; -1 (rank) or 0 (sizes) for NULL. @since 0.1 */
TRAINER_API int trainer_comm_rank(const trainer_comm* comm);
TRAINER_API int trainer_comm_size(const trainer_comm* comm);
TRAINER_API int trainer_comm_local_rank(const trainer_comm* comm);
TRAINER_API int trainer_comm_local_size(const trainer_comm* comm);
/** "mpi" or "nccl", static storage; "" for NULL. @since 0.1 */
TRAINER_API const char* trainer_comm_backend_name(const trainer_comm* comm);

/** In place when send == recv. @since 0.1 */
TRAINER_API trainer_status trainer_comm_all_reduce(trainer_comm* comm, const void* send, void* recv,
                                                   size_t count, int dtype, int op,
                                                   trainer_error** err);
/** `send` is read on `root` only. @since 0.1 */
TRAINER_API trainer_status trainer_comm_broadcast(trainer_comm* comm, const void* send, void* recv,
                                                  size_t count, int dtype, int root,
                                                  trainer_error** err);
/** `recv` holds size * send_count elements by rank; in place when
 *  send == recv + rank * send_count elements. @since 0.1 */
TRAINER_API trainer_status trainer_comm_all_gather(trainer_comm* comm, const void* send, void* recv,
                                                   size_t send_count, int dtype,
                                                   trainer_error** err);
/** `send` holds size * recv_count elements; in place when
 *  recv == send + rank * recv_count elements. @since 0.1 */
TRAINER_API trainer_status trainer_comm_reduce_scatter(trainer_comm* comm, const void* send,
                                                       void* recv, size_t recv_count, int dtype,
                                                       int op, trainer_error** err);
/** @since 0.1 */
TRAINER_API trainer_status trainer_comm_barrier(trainer_comm* comm, trainer_error** err);
/** Blocking point-to-point. @since 0.1 */
TRAINER_API trainer_status trainer_comm_send(trainer_comm* comm, const void* buf, size_t count,
                                             int dtype, int peer, trainer_error** err);
TRAINER_API trainer_status trainer_comm_recv(trainer_comm* comm, void* buf, size_t count, int dtype,
                                             int peer, trainer_error** err);
/** Waits for enqueued NCCL work (bounded by the timeout); a no-op on MPI. @since 0.1 */
TRAINER_API trainer_status trainer_comm_synchronize(trainer_comm* comm, trainer_error** err);

#ifdef __cplusplus
}
#endif

#endif /* TRAINER_COLLECTIVES_H */
