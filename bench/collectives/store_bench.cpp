// SPDX-License-Identifier: Apache-2.0
//
// store_bench: wall time of one TCP rendezvous round (tcp_rendezvous) with N forked processes
// on 127.0.0.1. Two columns per world size:
// - join_ms: the protocol alone. Before each round all processes meet at a barrier, rank 0
//   starts at once and the others 5 ms later (rank 0 listens by then, so no connect retry is
//   counted); the time from a rank's call to its return, the slowest rank's, median of rounds.
// - b2b_ms: rounds back to back on one port, as a job's bootstrap sees them (clients that come
//   before rank 0 listens retry with backoff from 2 ms): rank 0's mean time per round.
//
//   store_bench [-n 2,4,8] [-r 200] [-b 129]      (-b: bytes of rank 0's blob; others send 1)
#include "trainer/collectives.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace tc = trainer::collectives;
using Clock = std::chrono::steady_clock;

namespace {

std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    std::perror("bind");
    std::exit(1);
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

std::vector<int> parse_list(const char* text) {
  std::vector<int> out;
  std::string s(text);
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const auto comma = s.find(',', pos);
    out.push_back(std::atoi(s.substr(pos, comma - pos).c_str()));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

struct Shared {
  std::atomic<int> arrived{0};
  std::atomic<int> generation{0};
  double ms[64];  // this round's time per rank
};

void barrier(Shared* s, int n) {
  const int gen = s->generation.load();
  if (s->arrived.fetch_add(1) + 1 == n) {
    s->arrived.store(0);
    s->generation.fetch_add(1);
    return;
  }
  while (s->generation.load() == gen) std::this_thread::yield();
}

// join_ms: see the top of the file. Returns the slowest rank's time per round (ms).
std::vector<double> run_joins(int n, int rounds, std::size_t blob_bytes) {
  void* mem =
      ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED || n > 64) std::exit(1);
  auto* shared = new (mem) Shared();
  std::vector<double> slowest;
  std::vector<pid_t> pids;
  const std::uint16_t port = free_port();
  for (int rank = 1; rank < n; ++rank) {
    const pid_t pid = ::fork();
    if (pid != 0) {
      pids.push_back(pid);
      continue;
    }
    tc::RendezvousOptions o;
    o.port = port;
    o.rank = rank;
    o.size = n;
    o.timeout = std::chrono::milliseconds(20000);
    const std::string blob(1, 'x');
    for (int r = 0; r < rounds; ++r) {
      barrier(shared, n);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      const auto t0 = Clock::now();
      auto got = tc::tcp_rendezvous(o, blob);
      shared->ms[rank] = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      if (!got) {
        std::fprintf(stderr, "rank %d: %s\n", rank, got.error().message.c_str());
        ::_exit(1);
      }
      barrier(shared, n);
    }
    ::_exit(0);
  }
  tc::RendezvousOptions o;
  o.port = port;
  o.size = n;
  o.timeout = std::chrono::milliseconds(20000);
  const std::string blob(blob_bytes, 'x');
  for (int r = 0; r < rounds; ++r) {
    barrier(shared, n);
    const auto t0 = Clock::now();
    auto got = tc::tcp_rendezvous(o, blob);
    // rank 0 waited 5 ms for the others to start: not the protocol's time.
    shared->ms[0] = std::chrono::duration<double, std::milli>(Clock::now() - t0).count() - 5.0;
    if (!got) {
      std::fprintf(stderr, "rank 0: %s\n", got.error().message.c_str());
      std::exit(1);
    }
    barrier(shared, n);
    slowest.push_back(*std::max_element(shared->ms, shared->ms + n));
  }
  for (const pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
  ::munmap(mem, sizeof(Shared));
  return slowest;
}

// b2b_ms: `rounds` rounds back to back; returns rank 0's per-round times (ms).
std::vector<double> run(int n, int rounds, std::size_t blob_bytes) {
  const std::uint16_t port = free_port();
  int fds[2];
  if (::pipe(fds) != 0) std::exit(1);
  std::vector<pid_t> pids;
  for (int rank = 0; rank < n; ++rank) {
    const pid_t pid = ::fork();
    if (pid != 0) {
      pids.push_back(pid);
      continue;
    }
    ::close(fds[0]);
    tc::RendezvousOptions o;
    o.port = port;
    o.rank = rank;
    o.size = n;
    o.timeout = std::chrono::milliseconds(20000);
    const std::string blob(rank == 0 ? blob_bytes : 1, 'x');
    std::vector<double> ms;
    for (int r = 0; r < rounds; ++r) {
      const auto t0 = Clock::now();
      auto got = tc::tcp_rendezvous(o, blob);
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      if (!got || got->size() != static_cast<std::size_t>(n)) {
        std::fprintf(stderr, "rank %d round %d: %s\n", rank, r,
                     got ? "wrong size" : got.error().message.c_str());
        ::_exit(1);
      }
    }
    if (rank == 0) {
      const auto bytes = static_cast<ssize_t>(ms.size() * sizeof(double));
      if (::write(fds[1], ms.data(), static_cast<std::size_t>(bytes)) != bytes) ::_exit(2);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::vector<double> ms(static_cast<std::size_t>(rounds));
  const auto want = static_cast<ssize_t>(ms.size() * sizeof(double));
  ssize_t got = 0;
  while (got < want) {
    const ssize_t r = ::read(fds[0], reinterpret_cast<char*>(ms.data()) + got,
                             static_cast<std::size_t>(want - got));
    if (r <= 0) break;
    got += r;
  }
  ::close(fds[0]);
  bool ok = got == want;
  for (const pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  if (!ok) {
    std::fprintf(stderr, "n=%d: a rank failed\n", n);
    std::exit(1);
  }
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {2, 4, 8};
  int rounds = 200;
  std::size_t blob_bytes = 129;  // the NCCL bootstrap: [has_gpu][128-byte ncclUniqueId]
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "-n") {
      sizes = parse_list(argv[i + 1]);
    } else if (flag == "-r") {
      rounds = std::max(1, std::atoi(argv[i + 1]));
    } else if (flag == "-b") {
      blob_bytes = static_cast<std::size_t>(std::strtoull(argv[i + 1], nullptr, 10));
    } else {
      std::fprintf(stderr, "usage: store_bench [-n 2,4,8] [-r 200] [-b 129]\n");
      return 2;
    }
  }
  std::printf("%6s %8s %10s %10s %10s\n", "ranks", "rounds", "blob", "join_ms", "b2b_ms");
  for (const int n : sizes) {
    auto joins = run_joins(n, rounds, blob_bytes);
    std::sort(joins.begin(), joins.end());
    const auto ms = run(n, rounds, blob_bytes);
    double sum = 0;
    for (const double v : ms) sum += v;
    std::printf("%6d %8d %10zu %10.3f %10.3f\n", n, rounds, blob_bytes, joins[joins.size() / 2],
                sum / static_cast<double>(ms.size()));
  }
  return 0;
}
