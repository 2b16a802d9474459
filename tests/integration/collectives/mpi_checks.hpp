// SPDX-License-Identifier: Apache-2.0
// The checks of the tests that mpirun launches (ops_test, shm_all_reduce_test): a failed check
// names its rank and ends every rank at once through MPI_Abort, so no peer waits forever in a
// collective the failed rank will never join.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace trainer::collectives::mpi_checks {

/// This process's rank, for the failure messages (set once the communicator exists).
inline int g_rank = 0;
/// Checks made so far, for the summary line of rank 0.
inline long g_checks = 0;

[[noreturn]] inline void die(const std::string& what) {
  std::fprintf(stderr, "rank %d: FAIL: %s\n", g_rank, what.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

inline void expect(bool ok, const std::string& what) {
  ++g_checks;
  if (!ok) die(what);
}

}  // namespace trainer::collectives::mpi_checks
