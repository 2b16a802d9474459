// SPDX-License-Identifier: Apache-2.0
//
// What a local run costs over the processes it runs (docs/local.md, "Performance"):
//
// - `trainerctl run` of a TrainJob with N pods whose command is `true` (N = 2 and 8 by default),
//   against the floor: the same N `true` processes cloned bare into new mount, UTS and PID
//   namespaces (each PID 1 of its own namespace, as a pod's init is) and waited for;
// - `trainerctl run` of an OptimizationJob of T trials (20 by default, one at a time) whose
//   single pod runs `true`, per trial, against the same T processes cloned bare one after
//   another, per process.
//
// Each round runs the floor and every trainerctl given (`--trainerctl PATH`, repeatable: the
// build before a change and the build after it) back to back, so the machine's load falls on
// all of them alike; the table has the best and the median of the rounds and the ratio of the
// medians (and of the bests). Needs root (CAP_SYS_ADMIN) for the namespaces; without it the
// floor is plain fork+exec and the runs fall back to host isolation, and the table says so.
//
// The run folders go below `--dir` (default /tmp) and are removed after each table, not between
// runs: ext4 skips recently deleted inodes when it allocates one, so deleting a run folder
// every few milliseconds would make the next runs' file creations slower than a user's.
//
// Usage: bench_local [--rounds R] [--pods 2,8] [--trials T] [--dir DIR] [--trainerctl PATH]...
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#ifndef TRAINER_BENCH_TRAINERCTL
#error "bench/local/CMakeLists.txt defines this build's trainerctl"
#endif

namespace {

using Ms = std::chrono::duration<double, std::milli>;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_local: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(1);
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) die("writing " + path);
}

std::string runtime_yaml(int pods) {
  return R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: instant
spec:
  mlPolicy:
    numNodes: )" +
         std::to_string(pods) + R"(
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: unused
                      command: ["true"]
)";
}

std::string trainjob_yaml(int pods) {
  return R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: instant
spec:
  runtimeRef:
    name: instant
    kind: TrainingRuntime
  trainer:
    numNodes: )" +
         std::to_string(pods) + "\n";
}

// Trials take their values from a grid of T choices, one at a time: T trials exactly.
std::string optimizationjob_yaml(int trials) {
  std::string choices;
  for (int i = 0; i < trials; ++i) choices += (i == 0 ? "\"" : ", \"") + std::to_string(i) + "\"";
  return R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: OptimizationJob
metadata:
  name: instant
spec:
  objectives:
    - metric: loss
  searchAlgorithm:
    grid: {}
  parameters:
    - name: x
      searchSpace:
        categorical:
          choices: [)" +
         choices + R"(]
  numTrials: )" +
         std::to_string(trials) + R"(
  parallelTrials: 1
  trainJobTemplate:
    spec:
      runtimeRef:
        name: instant
        kind: TrainingRuntime
)";
}

bool can_unshare() {
  const pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) _exit(unshare(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWPID) == 0 ? 0 : 1);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The floor: `count` processes running `true`, `parallel` at a time, each cloned straight into
// new mount, UTS and PID namespaces (PID 1 there) when `namespaces`.
void bare(int count, int parallel, bool namespaces) {
  const unsigned long flags =
      (namespaces ? CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWPID : 0UL) | SIGCHLD;
  std::vector<pid_t> pids;
  const auto wait_all = [&pids] {
    for (const pid_t p : pids) {
      int status = 0;
      if (waitpid(p, &status, 0) != p || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        die("a bare `true` failed");
      }
    }
    pids.clear();
  };
  for (int i = 0; i < count; ++i) {
    const long pid = syscall(SYS_clone, flags, nullptr, nullptr, nullptr, nullptr);
    if (pid < 0) die("clone");
    if (pid == 0) {
      execlp("true", "true", static_cast<char*>(nullptr));
      _exit(127);
    }
    pids.push_back(static_cast<pid_t>(pid));
    if (static_cast<int>(pids.size()) == parallel) wait_all();
  }
  wait_all();
}

// Runs `argv` with its output to /dev/null and checks that it exits 0.
void run(const std::vector<std::string>& argv) {
  const pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string line;
    for (const auto& a : argv) line += a + " ";
    errno = 0;
    die("failed: " + line);
  }
}

// The time `f` takes, on the wall and in CPU (user + system) of the processes it waited for:
// the floor's clones, or a trainerctl with every process it reaped (its pods' helpers, which
// reaped their containers).
struct Cost {
  double wall = 0, cpu = 0;
};

double children_cpu_ms() {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  const auto ms = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
  };
  return ms(ru.ru_utime) + ms(ru.ru_stime);
}

Cost measure(const std::function<void()>& f) {
  const double cpu = children_cpu_ms();
  const auto start = std::chrono::steady_clock::now();
  f();
  return {Ms(std::chrono::steady_clock::now() - start).count(), children_cpu_ms() - cpu};
}

struct Series {
  std::string name;
  std::vector<double> wall, cpu;
  void add(Cost c) {
    wall.push_back(c.wall);
    cpu.push_back(c.cpu);
  }
};

double best(const std::vector<double>& v) {
  return *std::min_element(v.begin(), v.end());
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

void print(const std::string& what, const std::string& unit, const Series& floor,
           const std::vector<Series>& ours, double per) {
  std::printf("%s (%s; wall best/median, CPU median; ratio of medians to the floor's)\n",
              what.c_str(), unit.c_str());
  std::printf("  %-48s wall %7.2f %7.2f  cpu %7.2f\n", floor.name.c_str(), best(floor.wall) / per,
              median(floor.wall) / per, median(floor.cpu) / per);
  for (const auto& s : ours) {
    std::printf("  %-48s wall %7.2f %7.2f  cpu %7.2f  ratio wall %5.2fx (best %5.2fx) cpu %5.2fx\n",
                s.name.c_str(), best(s.wall) / per, median(s.wall) / per, median(s.cpu) / per,
                median(s.wall) / median(floor.wall), best(s.wall) / best(floor.wall),
                median(s.cpu) / median(floor.cpu));
  }
}

std::vector<int> parse_list(const char* text) {
  std::vector<int> out;
  for (const char* p = text; *p != '\0';) {
    char* end = nullptr;
    const long v = std::strtol(p, &end, 10);
    if (end == p || v <= 0) {
      errno = EINVAL;
      die(std::string("not a list of counts: ") + text);
    }
    out.push_back(static_cast<int>(v));
    p = *end == ',' ? end + 1 : end;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 15;
  int trials = 20;
  std::vector<int> pod_counts{2, 8};
  std::vector<std::string> builds;
  std::string base = "/tmp";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--rounds" && has_value) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--trials" && has_value) {
      trials = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--pods" && has_value) {
      pod_counts = parse_list(argv[++i]);
    } else if (a == "--dir" && has_value) {
      base = argv[++i];
    } else if (a == "--trainerctl" && has_value) {
      builds.emplace_back(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: bench_local [--rounds R] [--pods 2,8] [--trials T] [--dir DIR] "
                   "[--trainerctl PATH]...\n");
      return 2;
    }
  }
  if (builds.empty()) builds.emplace_back(TRAINER_BENCH_TRAINERCTL);
  const bool namespaces = can_unshare();
  std::string dir_template = base + "/bench_local.XXXXXX";
  if (mkdtemp(dir_template.data()) == nullptr) die("mkdtemp in " + base);
  const std::string dir = dir_template;
  write_file(dir + "/optimizationjob.yaml", optimizationjob_yaml(trials));
  write_file(dir + "/trial-runtime.yaml", runtime_yaml(1));
  for (const int n : pod_counts) {
    write_file(dir + "/trainjob-" + std::to_string(n) + ".yaml", trainjob_yaml(n));
    write_file(dir + "/runtime-" + std::to_string(n) + ".yaml", runtime_yaml(n));
  }
  std::printf("bench_local: %d rounds, %s\n", rounds,
              namespaces ? "namespaces (root)"
                         : "NO namespaces (not root): floor is plain fork+exec, runs use host "
                           "isolation");

  const std::string floor_name =
      namespaces ? "bare clone(NEWNS|NEWUTS|NEWPID) + exec true" : "bare fork + exec true";
  int serial = 0;
  const std::string runs = dir + "/runs";
  const auto fresh = [&runs, &serial] { return runs + "/" + std::to_string(serial++); };
  for (const int n : pod_counts) {
    Series floor{floor_name, {}, {}};
    std::vector<Series> ours;
    for (const auto& b : builds) ours.push_back({b + " run", {}, {}});
    const std::string tj = dir + "/trainjob-" + std::to_string(n) + ".yaml";
    const std::string rt = dir + "/runtime-" + std::to_string(n) + ".yaml";
    for (int r = 0; r < rounds; ++r) {
      floor.add(measure([&] { bare(n, n, namespaces); }));
      for (std::size_t b = 0; b < builds.size(); ++b) {
        const auto run_dir = fresh();
        ours[b].add(measure([&] {
          run({builds[b], "run", "-f", tj, "-f", rt, "--run-dir", run_dir});
        }));
      }
    }
    run({"/bin/rm", "-rf", runs});
    print("trainerctl run, " + std::to_string(n) + " pods of `true`", "ms per run", floor, ours,
          1.0);
  }

  Series floor{floor_name + ", one at a time", {}, {}};
  std::vector<Series> ours;
  for (const auto& b : builds) ours.push_back({b + " run", {}, {}});
  for (int r = 0; r < rounds; ++r) {
    floor.add(measure([&] { bare(trials, 1, namespaces); }));
    for (std::size_t b = 0; b < builds.size(); ++b) {
      const auto run_dir = fresh();
      ours[b].add(measure([&] {
        run({builds[b], "run", "-f", dir + "/optimizationjob.yaml", "-f",
             dir + "/trial-runtime.yaml", "--run-dir", run_dir});
      }));
    }
  }
  print("OptimizationJob, " + std::to_string(trials) + " trials of one `true` pod, one at a time",
        "ms per trial", floor, ours, trials);
  run({"/bin/rm", "-rf", dir});
  return 0;
}
