/* SPDX-License-Identifier: Apache-2.0 */
/* Every rank reports its rank, the world size, its host name and the server address of the SSH
 * session it was started through (SSH_CONNECTION's third field, inherited from the orted that
 * sshd started; "local" when none). Rank 0 gathers the reports and prints one line per rank in
 * rank order, after an all-reduce that proves the ranks talk to each other. */
#define _POSIX_C_SOURCE 200809L /* gethostname */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Room for the longest report: two ints, a 127-byte hostname and a 159-byte address. */
enum { kReportBytes = 384 };

static void ssh_server_address(char* out, size_t size) {
  const char* conn = getenv("SSH_CONNECTION"); /* "client_ip client_port server_ip port" */
  char client[64], server[64];
  unsigned client_port = 0, server_port = 0;
  if (conn == NULL ||
      sscanf(conn, "%63s %u %63s %u", client, &client_port, server, &server_port) != 4) {
    snprintf(out, size, "local");
    return;
  }
  snprintf(out, size, "%s:%u", server, server_port);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  char host[128] = {0};
  gethostname(host, sizeof host - 1);
  char via[160];
  ssh_server_address(via, sizeof via);
  char report[kReportBytes];
  memset(report, 0, sizeof report);
  snprintf(report, sizeof report, "rank=%d size=%d host=%s ssh=%s", rank, size, host, via);

  int rank_sum = 0;
  MPI_Allreduce(&rank, &rank_sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  char* all = NULL;
  if (rank == 0) all = calloc((size_t)size, kReportBytes);
  MPI_Gather(report, kReportBytes, MPI_CHAR, all, kReportBytes, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; ++r) printf("%s\n", all + (size_t)r * kReportBytes);
    printf("allreduce rank_sum=%d expected=%d\n", rank_sum, size * (size - 1) / 2);
    fflush(stdout);
    free(all);
  }
  MPI_Finalize();
  return 0;
}
