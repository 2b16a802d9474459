// SPDX-License-Identifier: Apache-2.0
// nccl-tests-style sweep of the MPI path (host float32 buffers): every point is measured through
// our Communicator and through the raw MPI call it wraps, interleaved rep by rep (A B, then
// B A), and the table gives the median ratio busbw_ours / busbw_raw, the median added time, and
// the heap allocations per operation after warm-up (counted by interposing malloc in this
// binary). For all_reduce every rep also runs a STREAM triad on every rank at once, and the
// table gives busbw_ours against the memory bound derived from it (see bound_busbw).
// Run: mpirun -np 2 coll_bench [-b 8] [-e 256M] [-f 2] [-o all_reduce,...] [-r 5] [-t 20]
// [--check]. --check exits 1 when a result is wrong or our layer allocates.
#include "trainer/collectives.hpp"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// ---- allocation counting -------------------------------------------------------------------
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);
}

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocs{0};
inline void count_one() {
  if (g_counting.load(std::memory_order_relaxed)) g_allocs.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" {
void* malloc(std::size_t n) {
  count_one();
  return __libc_malloc(n);
}
void* calloc(std::size_t a, std::size_t b) {
  count_one();
  return __libc_calloc(a, b);
}
void* realloc(void* p, std::size_t n) {
  count_one();
  return __libc_realloc(p, n);
}
void* memalign(std::size_t a, std::size_t n) {
  count_one();
  return __libc_memalign(a, n);
}
void* aligned_alloc(std::size_t a, std::size_t n) {
  count_one();
  return __libc_memalign(a, n);
}
int posix_memalign(void** out, std::size_t a, std::size_t n) {
  count_one();
  void* p = __libc_memalign(a, n);
  if (p == nullptr) return 12;  // ENOMEM
  *out = p;
  return 0;
}
void free(void* p) {
  __libc_free(p);
}
}

namespace tc = trainer::collectives;
using Clock = std::chrono::steady_clock;

namespace {

enum class Op { kAllReduce, kBroadcast, kAllGather, kReduceScatter };

struct Args {
  std::size_t min_bytes = 8;
  std::size_t max_bytes = std::size_t{256} << 20U;
  std::size_t factor = 2;
  std::vector<Op> ops = {Op::kAllReduce};
  int reps = 5;
  double min_rep_ms = 20;
  bool check = false;
};

const char* op_name(Op op) {
  switch (op) {
    case Op::kAllReduce: return "all_reduce";
    case Op::kBroadcast: return "broadcast";
    case Op::kAllGather: return "all_gather";
    case Op::kReduceScatter: return "reduce_scatter";
  }
  return "?";
}

double bus_factor(Op op, int n) {
  const double dn = n;
  switch (op) {
    case Op::kAllReduce: return 2.0 * (dn - 1) / dn;
    case Op::kAllGather:
    case Op::kReduceScatter: return (dn - 1) / dn;
    case Op::kBroadcast: return 1.0;
  }
  return 1.0;
}

std::size_t parse_size(const char* s) {
  char* end = nullptr;
  double v = std::strtod(s, &end);
  if (*end == 'K' || *end == 'k') v *= 1024;
  if (*end == 'M' || *end == 'm') v *= 1024.0 * 1024;
  if (*end == 'G' || *end == 'g') v *= 1024.0 * 1024 * 1024;
  return static_cast<std::size_t>(v);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (k == "-b") {
      a.min_bytes = parse_size(v);
      ++i;
    } else if (k == "-e") {
      a.max_bytes = parse_size(v);
      ++i;
    } else if (k == "-f") {
      a.factor = static_cast<std::size_t>(std::atoi(v));
      ++i;
    } else if (k == "-r") {
      a.reps = std::atoi(v);
      ++i;
    } else if (k == "-t") {
      a.min_rep_ms = std::atof(v);
      ++i;
    } else if (k == "--check") {
      a.check = true;
    } else if (k == "-o") {
      a.ops.clear();
      std::string list = v;
      ++i;
      for (const char* name : {"all_reduce", "broadcast", "all_gather", "reduce_scatter"}) {
        if (list.find(name) != std::string::npos) {
          a.ops.push_back(name[0] == 'b'   ? Op::kBroadcast
                          : name[4] == 'r' ? Op::kAllReduce
                          : name[4] == 'g' ? Op::kAllGather
                                           : Op::kReduceScatter);
        }
      }
    }
  }
  if (a.factor < 2) a.factor = 2;
  return a;
}

struct Bench {
  tc::Communicator* comm;
  int rank;
  int n;
  std::vector<float> a, b;         // a: send (or the in-place buffer), b: receive
  std::vector<double> ta, tb, tt;  // the triad's arrays (all_reduce only)
};

// STREAM's triad arrays must be well above the caches (4x their sum); 32 MiB of L3 here.
constexpr std::size_t kTriadBytes = std::size_t{128} << 20U;

// One STREAM triad pass (a = b + s * c, 2 reads and 1 write of kTriadBytes each, counted like
// STREAM without write-allocate traffic), on every rank at once: as many streams as ranks.
// Returns the aggregate bandwidth in bytes per second. Vectorised (see CMakeLists.txt): a
// scalar loop would measure the core, not the memory.
double triad(Bench& B) {
  double* a = B.ta.data();
  const double* b = B.tb.data();
  const double* c = B.tt.data();
  const std::size_t len = B.ta.size();
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = Clock::now();
  for (std::size_t i = 0; i < len; ++i) a[i] = b[i] + 3.0 * c[i];
  double t = std::chrono::duration<double>(Clock::now() - t0).count();
  double slowest = 0;
  MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return 3.0 * static_cast<double>(kTriadBytes) * B.n / slowest;
}

// The fastest an all-reduce of N bytes can go when memory bandwidth is the limit: a single-copy
// algorithm reads every rank's buffer once and writes each reduced block once (rank r reads
// block r of all n buffers and writes it: (n + 1) N / n per rank), then every rank reads the
// n - 1 other reduced blocks and writes them into its buffer (2 (n - 1) N / n per rank):
// (3n - 1) N bytes in all. At the triad's bandwidth that takes (3n - 1) N / triad seconds, and
// busbw = N * 2 (n - 1) / n / t. For n = 2: triad / 5.
double bound_busbw(double triad_bytes_per_s, int n) {
  const double dn = n;
  return triad_bytes_per_s * 2.0 * (dn - 1) / (dn * (3 * dn - 1)) / 1e9;
}

// One operation. `ours` picks the Communicator or raw MPI; `count` is the whole-buffer count
// (nccl-tests convention: per-rank count = count / n for all_gather and reduce_scatter).
bool run_op(Bench& B, Op op, bool ours, bool in_place, std::size_t count) {
  float* a = B.a.data();
  float* b = B.b.data();
  const std::size_t per = count / static_cast<std::size_t>(B.n);
  const auto ic = static_cast<int>(count);
  const auto ip = static_cast<int>(per);
  float* mine = b + per * static_cast<std::size_t>(B.rank);
  switch (op) {
    case Op::kAllReduce:
      if (ours) return bool(B.comm->all_reduce(a, in_place ? a : b, count, tc::ReduceOp::kSum));
      return MPI_Allreduce(in_place ? MPI_IN_PLACE : a, in_place ? a : b, ic, MPI_FLOAT, MPI_SUM,
                           MPI_COMM_WORLD) == MPI_SUCCESS;
    case Op::kBroadcast:
      if (ours) return bool(B.comm->broadcast(a, in_place ? a : b, count, 0));
      if (!in_place && B.rank == 0) std::memcpy(b, a, count * sizeof(float));
      return MPI_Bcast(in_place ? a : b, ic, MPI_FLOAT, 0, MPI_COMM_WORLD) == MPI_SUCCESS;
    case Op::kAllGather:
      if (ours) return bool(B.comm->all_gather(in_place ? mine : a, b, per));
      return MPI_Allgather(in_place ? MPI_IN_PLACE : a, ip, MPI_FLOAT, b, ip, MPI_FLOAT,
                           MPI_COMM_WORLD) == MPI_SUCCESS;
    case Op::kReduceScatter: {
      // In place: ours leaves the result in this rank's block (NCCL convention); raw
      // MPI_IN_PLACE leaves it at the start. Same buffer, same input size.
      float* rs_mine = a + per * static_cast<std::size_t>(B.rank);
      if (ours)
        return bool(B.comm->reduce_scatter(a, in_place ? rs_mine : b, per, tc::ReduceOp::kSum));
      return MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : a, in_place ? a : b, ip, MPI_FLOAT,
                                      MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
    }
  }
  return false;
}

// Seconds per op, averaged over ranks; allocations per op on this rank.
double timed(Bench& B, Op op, bool ours, bool in_place, std::size_t count, long iters,
             double* allocs_per_op) {
  MPI_Barrier(MPI_COMM_WORLD);
  g_allocs = 0;
  g_counting = true;
  const auto t0 = Clock::now();
  for (long i = 0; i < iters; ++i) run_op(B, op, ours, in_place, count);
  const auto t1 = Clock::now();
  g_counting = false;
  *allocs_per_op = static_cast<double>(g_allocs.load()) / static_cast<double>(iters);
  double t = std::chrono::duration<double>(t1 - t0).count() / static_cast<double>(iters);
  double sum = 0;
  MPI_Allreduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum / B.n;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Correctness after timing: small integers, exact.
long count_wrong(Bench& B, Op op, bool in_place, std::size_t count) {
  const std::size_t per = count / static_cast<std::size_t>(B.n);
  auto val = [](int r, std::size_t i) {
    return static_cast<float>((i + static_cast<std::size_t>(r) * 3) % 7);
  };
  for (std::size_t i = 0; i < count; ++i) B.a[i] = val(B.rank, i);
  if (op == Op::kAllGather && in_place) {
    for (std::size_t i = 0; i < per; ++i)
      B.b[per * static_cast<std::size_t>(B.rank) + i] = val(B.rank, i);
  }
  run_op(B, op, true, in_place, count);
  long wrong = 0;
  const float* out = in_place ? B.a.data() : B.b.data();
  switch (op) {
    case Op::kAllReduce:
      for (std::size_t i = 0; i < count; ++i) {
        float want = 0;
        for (int r = 0; r < B.n; ++r) want += val(r, i);
        wrong += out[i] == want ? 0 : 1;
      }
      break;
    case Op::kBroadcast:
      for (std::size_t i = 0; i < count; ++i) wrong += out[i] == val(0, i) ? 0 : 1;
      break;
    case Op::kAllGather:
      for (std::size_t i = 0; i < per * static_cast<std::size_t>(B.n); ++i) {
        wrong += B.b[i] == val(static_cast<int>(i / per), i % per) ? 0 : 1;
      }
      break;
    case Op::kReduceScatter: {
      const std::size_t base = per * static_cast<std::size_t>(B.rank);
      const float* r = in_place ? B.a.data() + base : B.b.data();
      for (std::size_t i = 0; i < per; ++i) {
        float want = 0;
        for (int k = 0; k < B.n; ++k) want += val(k, base + i);
        wrong += r[i] == want ? 0 : 1;
      }
      break;
    }
  }
  long total = 0;
  MPI_Allreduce(&wrong, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

struct Point {
  double t_ours = 0, t_raw = 0, ratio = 0, ratio_min = 0, ratio_max = 0, dt_us = 0;
  double allocs_ours = 0, allocs_raw = 0;
  double bound = 0, of_bound = 0;  // all_reduce: median bound busbw (GB/s), ours / bound
  long wrong = 0;
};

Point measure(Bench& B, const Args& args, Op op, bool in_place, std::size_t count) {
  const double bus = static_cast<double>(count * sizeof(float)) * bus_factor(op, B.n) / 1e9;
  Point p;
  double dummy = 0;
  for (int i = 0; i < 5; ++i) {  // warm-up: first-touch pages, scratch space, MPI internals
    run_op(B, op, true, in_place, count);
    run_op(B, op, false, in_place, count);
  }
  // Calibrate iterations so that one rep lasts >= min_rep_ms (rank 0 decides for everyone).
  long iters = 1;
  for (;;) {
    const double t =
        timed(B, op, true, in_place, count, iters, &dummy) * static_cast<double>(iters);
    long done = (t * 1e3 >= args.min_rep_ms || iters >= (1L << 24)) ? 1 : 0;
    MPI_Bcast(&done, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (done != 0) break;
    iters *= 2;
  }
  iters = std::max(iters, 2L);
  std::vector<double> to, tr, ratio, dt, ao, ar, bound, of_bound;
  for (int rep = 0; rep < args.reps; ++rep) {
    double a1 = 0, a2 = 0, o = 0, r = 0;
    if (rep % 2 == 0) {
      o = timed(B, op, true, in_place, count, iters, &a1);
      r = timed(B, op, false, in_place, count, iters, &a2);
    } else {
      r = timed(B, op, false, in_place, count, iters, &a2);
      o = timed(B, op, true, in_place, count, iters, &a1);
    }
    to.push_back(o);
    tr.push_back(r);
    ratio.push_back(r / o);  // busbw_ours / busbw_raw
    dt.push_back((o - r) * 1e6);
    ao.push_back(a1);
    ar.push_back(a2);
    if (op == Op::kAllReduce) {
      bound.push_back(bound_busbw(triad(B), B.n));
      of_bound.push_back(bus / o / bound.back());
    }
  }
  if (!bound.empty()) {
    p.bound = median(bound);
    p.of_bound = median(of_bound);
  }
  p.t_ours = median(to);
  p.t_raw = median(tr);
  p.ratio = median(ratio);
  p.ratio_min = *std::min_element(ratio.begin(), ratio.end());
  p.ratio_max = *std::max_element(ratio.begin(), ratio.end());
  p.dt_us = median(dt);
  // Steady state: the fewest allocations seen in a rep (Open MPI grows free lists and sets up
  // connections now and then, in our reps and in raw ones alike).
  p.allocs_ours = *std::min_element(ao.begin(), ao.end());
  p.allocs_raw = *std::min_element(ar.begin(), ar.end());
  p.wrong = count_wrong(B, op, in_place, count);
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);  // we own MPI here; the Communicator must leave it alone
  const Args args = parse(argc, argv);
  auto made = tc::Communicator::create_mpi();
  if (!made) {
    std::fprintf(stderr, "create_mpi: %s\n", made.error().message.c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  Bench B{&*made, made->rank(), made->size(), {}, {}, {}, {}, {}};
  const std::size_t max_count = args.max_bytes / sizeof(float);
  B.a.assign(max_count + 16, 0.0F);
  B.b.assign(max_count + 16, 0.0F);
  if (std::find(args.ops.begin(), args.ops.end(), Op::kAllReduce) != args.ops.end()) {
    B.ta.assign(kTriadBytes / sizeof(double), 1.0);
    B.tb.assign(kTriadBytes / sizeof(double), 2.0);
    B.tt.assign(kTriadBytes / sizeof(double), 3.0);
  }
  auto env = [](const char* name, const char* otherwise) {
    const char* v = std::getenv(name);
    return v != nullptr ? v : otherwise;
  };
  if (B.rank == 0) {
    std::printf(
        "# libtrainer collectives benchmark: MPI path, host float32, n=%d, reps=%d, "
        ">= %.0f ms per rep\n# GLIBC_TUNABLES=%s TRAINER_MPI_RING_THRESHOLD=%s "
        "TRAINER_MPI_SHM_THRESHOLD=%s TRAINER_MPI_SHM_CHUNK=%s\n",
        B.n, args.reps, args.min_rep_ms, env("GLIBC_TUNABLES", "(unset)"),
        env("TRAINER_MPI_RING_THRESHOLD", "(default)"),
        env("TRAINER_MPI_SHM_THRESHOLD", "(default)"), env("TRAINER_MPI_SHM_CHUNK", "(default)"));
    std::printf(
        "# ratio = median over reps of busbw_ours/busbw_raw (min..max); dt = median "
        "t_ours - t_raw; allocs = mallocs per op after warm-up (ours/raw)\n"
        "# all_reduce: bound = memory-bound busbw = triad * 2(n-1) / (n (3n-1)) (GB/s; triad: "
        "STREAM triad on %d ranks at once, 3 x %zu MiB per rank, once per rep); %%bnd = median "
        "busbw_ours / bound\n",
        B.n, kTriadBytes >> 20U);
  }
  bool failed = false;
  for (const Op op : args.ops) {
    if (B.rank == 0) {
      std::printf(
          "\n# %s\n# %10s %10s %6s %5s | %10s %8s %8s %6s %10s %6s %15s %6s %5s %8s %9s | %10s %8s "
          "%8s %6s %10s %6s %15s %6s %5s %8s %9s\n",
          op_name(op), "size", "count", "type", "redop", "time(us)", "algbw", "busbw", "#wrong",
          "raw(us)", "ratio", "(min..max)", "bound", "%bnd", "dt(us)", "allocs", "time(us)",
          "algbw", "busbw", "#wrong", "raw(us)", "ratio", "(min..max)", "bound", "%bnd", "dt(us)",
          "allocs");
      std::printf("# %39s | %-117s | %-117s\n", "", "out-of-place", "in-place");
    }
    double min_ratio_64k = 1e9;
    double min_ratio_16m = 1e9;  // sizes <= 16 MiB
    double min_bound_32m = 1e9;  // sizes >= 32 MiB
    double dt_8b = 0;
    for (std::size_t bytes = args.min_bytes; bytes <= args.max_bytes; bytes *= args.factor) {
      std::size_t count = bytes / sizeof(float);
      if (op == Op::kAllGather || op == Op::kReduceScatter) {
        count = std::max<std::size_t>(count / static_cast<std::size_t>(B.n), 1) *
                static_cast<std::size_t>(B.n);
      }
      if (count == 0) continue;
      const std::size_t s = count * sizeof(float);
      Point pt[2];
      for (int ip = 0; ip < 2; ++ip) pt[ip] = measure(B, args, op, ip == 1, count);
      if (B.rank == 0) {
        std::printf("  %10zu %10zu %6s %5s", s, count, "float", "sum");
        for (const Point& p : pt) {
          const double algbw = static_cast<double>(s) / p.t_ours / 1e9;
          std::printf(
              " | %10.2f %8.2f %8.2f %6ld %10.2f %6.3f (%5.3f..%5.3f) %6.2f %4.0f%% %8.3f "
              "%4.1f/%-4.1f",
              p.t_ours * 1e6, algbw, algbw * bus_factor(op, B.n), p.wrong, p.t_raw * 1e6, p.ratio,
              p.ratio_min, p.ratio_max, p.bound, p.of_bound * 100, p.dt_us, p.allocs_ours,
              p.allocs_raw);
        }
        std::printf("\n");
        std::fflush(stdout);
      }
      for (const Point& p : pt) {
        if (s >= 64 * 1024) min_ratio_64k = std::min(min_ratio_64k, p.ratio);
        if (s <= (std::size_t{16} << 20U)) min_ratio_16m = std::min(min_ratio_16m, p.ratio);
        if (s >= (std::size_t{32} << 20U)) min_bound_32m = std::min(min_bound_32m, p.of_bound);
        // Our layer must add no allocation: ours may not allocate more than the raw call.
        if (p.wrong != 0 || p.allocs_ours > p.allocs_raw) {
          failed = true;
          if (B.rank == 0) {
            std::printf("# FAIL at %zu B: %ld wrong, %.2f allocations per op (raw %.2f)\n", s,
                        p.wrong, p.allocs_ours, p.allocs_raw);
          }
        }
      }
      if (s == args.min_bytes) dt_8b = std::max(pt[0].dt_us, pt[1].dt_us);
    }
    if (B.rank == 0) {
      std::printf(
          "# %s: min ratio at >= 64 KiB: %.3f (target >= 0.97); added time at %zu B: "
          "%.3f us (target <= 0.25)\n",
          op_name(op), min_ratio_64k > 1e8 ? 0.0 : min_ratio_64k, args.min_bytes, dt_8b);
      if (op == Op::kAllReduce) {
        std::printf(
            "# all_reduce: min ratio at <= 16 MiB: %.3f (target >= 1.0); min busbw / memory "
            "bound at >= 32 MiB: %.0f%% (target >= 60%%); in and out of place\n",
            min_ratio_16m > 1e8 ? 0.0 : min_ratio_16m,
            min_bound_32m > 1e8 ? 0.0 : min_bound_32m * 100);
      }
    }
  }
  int any = failed ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&any, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (B.rank == 0) {
    std::printf("# %s\n", all != 0 ? "FAILED: wrong results or allocations added by our layer"
                                   : "OK: no wrong results, no allocations added by our layer");
  }
  { tc::Communicator drop = std::move(*made); }
  MPI_Finalize();
  return args.check && all != 0 ? 1 : 0;
}
