/* SPDX-License-Identifier: Apache-2.0 */
/* trainer_comm_* from pure C11 under mpirun: create from the environment, every collective
 * once with exact checks, errors as owned objects, NULL handling. */
#include "trainer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, what)                                              \
  do {                                                                 \
    if (!(cond)) {                                                     \
      ++failures;                                                      \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, (what)); \
    }                                                                  \
  } while (0)

static void check_ok(trainer_status s, trainer_error* err, const char* what) {
  if (s != TRAINER_OK) {
    ++failures;
    fprintf(stderr, "FAIL: %s: %s (%s)\n", what, trainer_error_message(err),
            trainer_status_name(s));
  }
  trainer_error_free(err);
}

int main(void) {
  trainer_comm* comm = NULL;
  trainer_error* err = NULL;
  trainer_comm_options opts = TRAINER_COMM_OPTIONS_INIT;
  trainer_status s = trainer_comm_init_from_env(&opts, &comm, &err);
  if (s != TRAINER_OK) {
    fprintf(stderr, "trainer_comm_init_from_env: %s\n", trainer_error_message(err));
    trainer_error_free(err);
    return (trainer_features() & TRAINER_FEATURE_MPI) ? 1 : 77;
  }
  {
    const int rank = trainer_comm_rank(comm);
    const int n = trainer_comm_size(comm);
    int i;
    int32_t ints[5];
    float avg[3];
    int64_t gathered[8];
    int64_t mine;
    double rs[8];
    double rs_out = 0;

    CHECK(strcmp(trainer_comm_backend_name(comm), "mpi") == 0, "backend name");
    CHECK(n >= 1 && n <= 8 && rank >= 0 && rank < n, "rank and size");
    CHECK(trainer_comm_local_rank(comm) < trainer_comm_local_size(comm), "local rank");

    for (i = 0; i < 5; ++i) ints[i] = rank + i;
    check_ok(
        trainer_comm_all_reduce(comm, ints, ints, 5, TRAINER_DTYPE_INT32, TRAINER_REDUCE_SUM, &err),
        err, "all_reduce");
    for (i = 0; i < 5; ++i) CHECK(ints[i] == n * (n - 1) / 2 + n * i, "all_reduce sum");

    for (i = 0; i < 3; ++i) avg[i] = (float)(rank * 2 + i);
    check_ok(
        trainer_comm_all_reduce(comm, avg, avg, 3, TRAINER_DTYPE_FLOAT32, TRAINER_REDUCE_AVG, &err),
        err, "all_reduce avg");
    for (i = 0; i < 3; ++i) CHECK(avg[i] == (float)(n - 1) + (float)i, "all_reduce avg");

    for (i = 0; i < 5; ++i) ints[i] = rank == n - 1 ? 40 + i : -1;
    check_ok(trainer_comm_broadcast(comm, ints, ints, 5, TRAINER_DTYPE_INT32, n - 1, &err), err,
             "broadcast");
    for (i = 0; i < 5; ++i) CHECK(ints[i] == 40 + i, "broadcast");

    mine = 100 + rank;
    check_ok(trainer_comm_all_gather(comm, &mine, gathered, 1, TRAINER_DTYPE_INT64, &err), err,
             "all_gather");
    for (i = 0; i < n; ++i) CHECK(gathered[i] == 100 + i, "all_gather");

    for (i = 0; i < n; ++i) rs[i] = (double)(i * 10 + rank);
    check_ok(trainer_comm_reduce_scatter(comm, rs, &rs_out, 1, TRAINER_DTYPE_FLOAT64,
                                         TRAINER_REDUCE_MAX, &err),
             err, "reduce_scatter");
    CHECK(rs_out == (double)(rank * 10 + n - 1), "reduce_scatter max");

    check_ok(trainer_comm_barrier(comm, &err), err, "barrier");
    check_ok(trainer_comm_synchronize(comm, &err), err, "synchronize");

    /* Errors are owned objects with a code and a message. */
    s = trainer_comm_all_reduce(comm, ints, ints, 1, 99, TRAINER_REDUCE_SUM, &err);
    CHECK(s == TRAINER_E_INVALID_ARGUMENT, "bad dtype status");
    CHECK(err != NULL && trainer_error_code(err) == TRAINER_E_INVALID_ARGUMENT, "error code");
    CHECK(err != NULL && strstr(trainer_error_message(err), "data type") != NULL, "error text");
    trainer_error_free(err);
    err = NULL;
    s = trainer_comm_broadcast(comm, ints, ints, 1, TRAINER_DTYPE_INT32, n, NULL);
    CHECK(s == TRAINER_E_INVALID_ARGUMENT, "bad root without error object");
    s = trainer_comm_barrier(NULL, &err);
    CHECK(s == TRAINER_E_INVALID_ARGUMENT && err != NULL, "NULL communicator");
    trainer_error_free(err);
    err = NULL;
    opts.version = 99;
    {
      trainer_comm* other = NULL;
      s = trainer_comm_create_mpi(&opts, &other, &err);
      CHECK(s == TRAINER_E_INVALID_ARGUMENT && other == NULL, "unknown options version");
      trainer_error_free(err);
      err = NULL;
    }
    /* NCCL needs CUDA; without a GPU (or without NCCL compiled in) this is UNSUPPORTED. */
    {
      trainer_comm* nccl = NULL;
      trainer_comm_options o = TRAINER_COMM_OPTIONS_INIT;
      o.timeout_ms = 2000;
      s = trainer_comm_create_nccl("127.0.0.1", 9, 1, 0, 1, 0, 1, &o, &nccl, &err);
      if (s == TRAINER_OK) {
        trainer_comm_free(nccl); /* a GPU machine */
      } else {
        CHECK(s == TRAINER_E_UNSUPPORTED, "NCCL without GPU is TRAINER_E_UNSUPPORTED");
      }
      trainer_error_free(err);
      err = NULL;
    }
    CHECK(trainer_comm_rank(NULL) == -1 && trainer_comm_size(NULL) == 0, "NULL accessors");
    if (rank == 0) printf("capi comm: %d ranks, %d failures\n", n, failures);
  }
  trainer_comm_free(comm);
  trainer_comm_free(NULL);
  return failures == 0 ? 0 : 1;
}
