// SPDX-License-Identifier: Apache-2.0
// The TCP rendezvous store with N forked local processes on 127.0.0.1 (exchange, missing rank,
// wrong world size, duplicate rank, junk on the port), plan_from_env, the "no GPU" path of
// init_from_env under a torch-style environment, and the cost of the GPU probe.
#include "trainer/collectives.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace tc = trainer::collectives;
using trainer::ErrorCode;
using Clock = std::chrono::steady_clock;

namespace {

int g_failures = 0;
int g_checks = 0;

void expect(bool ok, const std::string& what) {
  ++g_checks;
  if (!ok) {
    ++g_failures;
    std::fprintf(stderr, "[pid %d] FAIL: %s\n", static_cast<int>(getpid()), what.c_str());
  }
}

std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    std::perror("bind");
    std::exit(1);
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

// Runs fn(i) in a child process for each i; returns true when every child exited 0.
bool run_children(int n, const std::function<int(int)>& fn) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<pid_t> pids;
  for (int i = 0; i < n; ++i) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      const int rc = fn(i);
      std::fflush(stdout);
      std::fflush(stderr);
      ::_exit(rc);
    }
    pids.push_back(pid);
  }
  bool ok = true;
  for (const pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return ok;
}

std::string blob_of(int rank) {
  if (rank == 2) return std::string();  // empty blobs are fine
  if (rank == 3) return std::string(std::size_t{1} << 20U, static_cast<char>('a' + rank));
  return "blob-of-rank-" + std::to_string(rank);
}

tc::RendezvousOptions opts(std::uint16_t port, int rank, int size, int timeout_ms) {
  tc::RendezvousOptions o;
  o.host = "127.0.0.1";
  o.port = port;
  o.rank = rank;
  o.size = size;
  o.timeout = std::chrono::milliseconds(timeout_ms);
  return o;
}

void test_exchange() {
  const int n = 4;
  const std::uint16_t port = free_port();
  // Children start in reverse rank order, so the clients retry until rank 0 listens.
  const bool ok = run_children(n, [&](int i) {
    const int rank = n - 1 - i;
    if (rank == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto r = tc::tcp_rendezvous(opts(port, rank, n, 10000), blob_of(rank));
    if (!r) {
      std::fprintf(stderr, "rank %d: %s\n", rank, r.error().message.c_str());
      return 1;
    }
    if (r->size() != static_cast<std::size_t>(n)) return 2;
    for (int k = 0; k < n; ++k) {
      if ((*r)[static_cast<std::size_t>(k)] != blob_of(k)) return 3;
    }
    return 0;
  });
  expect(ok, "4 processes rendezvous and exchange blobs (empty, short, 1 MiB)");
}

void test_second_round_same_port() {
  const std::uint16_t port = free_port();
  const bool ok = run_children(3, [&](int rank) {
    for (int round = 0; round < 2; ++round) {
      auto r = tc::tcp_rendezvous(opts(port, rank, 3, 10000), std::to_string(round * 10 + rank));
      if (!r || (*r)[2] != std::to_string(round * 10 + 2)) return 1;
    }
    return 0;
  });
  expect(ok, "two rendezvous rounds on the same port");
}

void test_missing_rank() {
  const std::uint16_t port = free_port();
  const int timeout_ms = 400;
  const bool ok = run_children(2, [&](int rank) {  // rank 2 of 3 never comes
    const auto t0 = Clock::now();
    auto r = tc::tcp_rendezvous(opts(port, rank, 3, timeout_ms), "x");
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
    if (r) return 1;
    std::printf("  rank %d after %lld ms: [%d] %s\n", rank, static_cast<long long>(ms),
                static_cast<int>(r.error().code), r.error().message.c_str());
    if (r.error().code != ErrorCode::kTimeout) return 2;
    if (r.error().message.find("[2]") == std::string::npos) return 3;  // names the missing rank
    if (ms < timeout_ms - 50 || ms > timeout_ms + 1000) return 4;
    return 0;
  });
  expect(ok, "a missing rank times out on every rank with the missing rank named");
}

void test_no_server() {
  const std::uint16_t port = free_port();
  const auto t0 = Clock::now();
  auto r = tc::tcp_rendezvous(opts(port, 1, 2, 200), "x");
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  expect(!r && r.error().code == ErrorCode::kTimeout &&
             r.error().message.find("could not reach the rendezvous at 127.0.0.1:") !=
                 std::string::npos,
         "no rank 0: clear timeout");
  expect(ms >= 150 && ms < 1200, "no rank 0: within the timeout");
}

void test_wrong_world_size() {
  const std::uint16_t port = free_port();
  const bool ok = run_children(2, [&](int rank) {
    auto r = tc::tcp_rendezvous(opts(port, rank, rank == 0 ? 2 : 3, 5000), "x");
    if (r) return 1;
    std::printf("  rank %d: %s\n", rank, r.error().message.c_str());
    if (r.error().code != ErrorCode::kInvalid) return 2;
    if (r.error().message.find("world size mismatch") == std::string::npos) return 3;
    return 0;
  });
  expect(ok, "a wrong world size is detected on both sides");
}

void test_duplicate_rank() {
  const std::uint16_t port = free_port();
  const bool ok = run_children(3, [&](int i) {
    const int rank = i == 0 ? 0 : 1;  // two processes claim rank 1
    if (i == 2) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto r = tc::tcp_rendezvous(opts(port, rank, 3, 3000), "x");
    if (r) return 1;
    if (i == 0 && r.error().message.find("joined twice") == std::string::npos) return 2;
    return 0;
  });
  expect(ok, "a duplicate rank is detected");
}

void test_junk_on_port() {
  const std::uint16_t port = free_port();
  const bool ok = run_children(3, [&](int i) {
    if (i == 2) {  // a stray client writes garbage first
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      a.sin_port = htons(port);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
        const char junk[] = "GET / HTTP/1.1\r\n\r\n";
        (void)!::write(fd, junk, sizeof junk);
      }
      ::close(fd);
      return 0;
    }
    if (i == 1) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto r = tc::tcp_rendezvous(opts(port, i, 2, 5000), "ok");
    return r && (*r)[0] == "ok" && (*r)[1] == "ok" ? 0 : 1;
  });
  expect(ok, "junk on the port does not break the rendezvous");
}

void test_bad_options() {
  auto r = tc::tcp_rendezvous(opts(1, 3, 2, 100), "");
  expect(!r && r.error().code == ErrorCode::kInvalidArgument, "rank >= size rejected");
  r = tc::tcp_rendezvous(opts(0, 1, 2, 100), "");
  expect(!r && r.error().code == ErrorCode::kInvalidArgument, "port 0 rejected");
  r = tc::tcp_rendezvous(opts(0, 0, 1, 100), "solo");
  expect(r && r->size() == 1 && (*r)[0] == "solo", "world of one needs no network");
}

tc::EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

void test_plan_from_env() {
  using M = tc::BootstrapPlan::Method;
  auto p = tc::plan_from_env(env_of({{"OMPI_COMM_WORLD_SIZE", "4"},
                                     {"OMPI_COMM_WORLD_RANK", "3"},
                                     {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                     {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                                     {"RANK", "0"},
                                     {"WORLD_SIZE", "9"}}));
  expect(p && p->method == M::kMpi && p->rank == 3 && p->size == 4 && p->local_rank == 1 &&
             p->local_size == 2 && p->source == "mpirun",
         "mpirun env wins over RANK/WORLD_SIZE");

  const std::map<std::string, std::string> torchrun = {{"RANK", "5"},
                                                       {"WORLD_SIZE", "8"},
                                                       {"LOCAL_RANK", "1"},
                                                       {"LOCAL_WORLD_SIZE", "4"},
                                                       {"MASTER_ADDR", "job-node-0-0.job"},
                                                       {"MASTER_PORT", "29500"},
                                                       {"TORCHELASTIC_RUN_ID", "abc"},
                                                       {"PET_NNODES", "2"},
                                                       {"PET_NODE_RANK", "1"}};
  p = tc::plan_from_env(env_of(torchrun));
  expect(p && p->method == M::kTcpStore && p->rank == 5 && p->size == 8 && p->local_rank == 1 &&
             p->local_size == 4 && p->store_host == "job-node-0-0.job" && p->store_port == 29501 &&
             p->source == "torchrun",
         "torchrun: MASTER_PORT + 1, torchrun wins over PET_*");
  auto with_port = torchrun;
  with_port["TRAINER_STORE_PORT"] = "31000";
  p = tc::plan_from_env(env_of(with_port));
  expect(p && p->store_port == 31000, "TRAINER_STORE_PORT overrides");
  auto plain = torchrun;
  plain.erase("TORCHELASTIC_RUN_ID");
  p = tc::plan_from_env(env_of(plain));
  expect(p && p->store_port == 29500 && p->source == "RANK/WORLD_SIZE",
         "RANK/WORLD_SIZE without torchrun: MASTER_PORT itself");

  p = tc::plan_from_env(env_of({{"PET_NNODES", "3"},
                                {"PET_NPROC_PER_NODE", "2"},
                                {"PET_NODE_RANK", "2"},
                                {"LOCAL_RANK", "1"},
                                {"PET_MASTER_ADDR", "127.0.0.1"},
                                {"PET_MASTER_PORT", "29500"}}));
  expect(p && p->method == M::kTcpStore && p->size == 6 && p->rank == 5 && p->local_rank == 1 &&
             p->local_size == 2 && p->store_port == 29500 && p->source == "PET",
         "PET_*: rank = node_rank * nproc + local_rank");
  p = tc::plan_from_env(env_of({{"PET_NNODES", "3"},
                                {"PET_NPROC_PER_NODE", "2"},
                                {"PET_NODE_RANK", "2"},
                                {"PET_MASTER_ADDR", "h"},
                                {"PET_MASTER_PORT", "29500"}}));
  expect(!p && p.error().message.find("LOCAL_RANK") != std::string::npos,
         "PET_* with nproc > 1 needs LOCAL_RANK");
  p = tc::plan_from_env(env_of({{"PET_NNODES", "2"},
                                {"PET_NPROC_PER_NODE", "auto"},
                                {"PET_NODE_RANK", "0"},
                                {"PET_MASTER_ADDR", "h"},
                                {"PET_MASTER_PORT", "29500"}}));
  expect(!p && p.error().message.find("auto") != std::string::npos, "PET auto needs torchrun");
  p = tc::plan_from_env(
      env_of({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}}));
  expect(!p && p.error().message.find("RANK=\"2\"") != std::string::npos, "RANK out of range");
  p = tc::plan_from_env(
      env_of({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "70000"}}));
  expect(!p && p.error().message.find("MASTER_PORT") != std::string::npos, "bad port");
  p = tc::plan_from_env(env_of({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "1"}}));
  expect(!p && p.error().message.find("MASTER_ADDR") != std::string::npos, "missing address");
  p = tc::plan_from_env(env_of({{"TRAINER_COLLECTIVES_BACKEND", "gloo"}}));
  expect(!p && p.error().message.find("TRAINER_COLLECTIVES_BACKEND") != std::string::npos,
         "unknown backend name");
  p = tc::plan_from_env(env_of({}));
  expect(!p && p.error().code == ErrorCode::kInvalidArgument &&
             p.error().message.find("no distributed environment") != std::string::npos,
         "empty environment");
}

void test_gpu_probe_and_nccl_without_gpu() {
  const auto t0 = Clock::now();
  const bool have = tc::cuda_available();
  const auto t1 = Clock::now();
  const bool again = tc::cuda_available();
  const auto t2 = Clock::now();
  const double first_us = std::chrono::duration<double, std::micro>(t1 - t0).count();
  const double cached_us = std::chrono::duration<double, std::micro>(t2 - t1).count();
  std::printf("  cuda_available() = %s: first call %.1f us, cached %.3f us\n",
              have ? "true" : "false", first_us, cached_us);
  expect(have == again, "probe is stable");
  if (have) {
    std::printf("  a GPU is present: the no-GPU path is covered by the gpu tests instead\n");
    return;
  }
  expect(first_us < 1000.0, "no GPU detected in under 1 ms");

  // Two ranks under a torchrun-style env ask for NCCL: every rank fails the same way, fast,
  // after the rendezvous told them who lacks a GPU (or NCCL is not compiled in).
  const std::uint16_t port = free_port();
  const bool ok = run_children(2, [&](int rank) {
    auto env = env_of({{"RANK", std::to_string(rank)},
                       {"WORLD_SIZE", "2"},
                       {"MASTER_ADDR", "127.0.0.1"},
                       {"MASTER_PORT", std::to_string(port)}});
    tc::CommOptions o;
    o.memory = tc::MemoryKind::kCuda;
    o.timeout = std::chrono::milliseconds(5000);
    const auto s = Clock::now();
    auto c = tc::Communicator::init_from_env(env, o);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - s).count();
    if (c) return 1;
    std::printf("  rank %d (%.1f ms): %s\n", rank, ms, c.error().message.c_str());
    if (c.error().code != ErrorCode::kUnsupported) return 2;
    if (tc::backend_compiled(tc::Backend::kNccl) &&
        c.error().message.find("rank(s) [0, 1]") == std::string::npos) {
      return 3;
    }
    return ms < 1000 ? 0 : 4;
  });
  expect(ok, "NCCL under a torch env without GPU: kUnsupported on every rank");

  // Host memory under a torch-style env: the MPI backend needs mpirun.
  tc::CommOptions host;
  auto c = tc::Communicator::init_from_env(
      env_of(
          {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "1"}}),
      host);
  expect(!c && c.error().code == ErrorCode::kUnsupported &&
             c.error().message.find("mpirun") != std::string::npos,
         "host memory under torch env explains itself");
}

}  // namespace

int main() {
  const auto t0 = Clock::now();
  test_exchange();
  test_second_round_same_port();
  test_missing_rank();
  test_no_server();
  test_wrong_world_size();
  test_duplicate_rank();
  test_junk_on_port();
  test_bad_options();
  test_plan_from_env();
  test_gpu_probe_and_nccl_without_gpu();
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("collectives store: %d checks, %d failures (%.2f s)\n", g_checks, g_failures, secs);
  return g_failures == 0 ? 0 : 1;
}
