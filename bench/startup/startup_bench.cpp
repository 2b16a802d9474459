// SPDX-License-Identifier: Apache-2.0
//
// Start-up cost of trainerctl commands that neither talk to a cluster nor run collectives,
// against /bin/true: each command and /bin/true run alternately (`--runs` times each, default
// 200), every run a fork + exec + wait with stdout and stderr to /dev/null. For each the CPU
// time the child used (user + system, from wait4: on a shared machine it does not count the
// time other processes held the core) and its wall time, the fastest and the median, and the
// ratio of the medians to /bin/true's. The goal for these commands is a CPU ratio of at most 4.
//
// Usage: bench_startup [--trainerctl PATH] [--runs N]   (PATH defaults to this build's)
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Sample {
  double cpu_ms = 0;
  double wall_ms = 0;
};

double ms(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) * 1e3 + static_cast<double>(tv.tv_usec) * 1e-3;
}

Sample run_once(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("bench_startup: fork");
    std::exit(1);
  }
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "bench_startup: %s failed (status %d)\n", argv[0].c_str(), status);
    std::exit(1);
  }
  Sample s;
  s.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  s.cpu_ms = ms(usage.ru_utime) + ms(usage.ru_stime);
  return s;
}

struct Summary {
  double cpu_best = 0, cpu_median = 0, wall_best = 0, wall_median = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Summary summarize(const std::vector<Sample>& samples) {
  std::vector<double> cpu, wall;
  for (const auto& s : samples) {
    cpu.push_back(s.cpu_ms);
    wall.push_back(s.wall_ms);
  }
  return {*std::min_element(cpu.begin(), cpu.end()), median(cpu),
          *std::min_element(wall.begin(), wall.end()), median(wall)};
}

}  // namespace

int main(int argc, char** argv) {
  std::string trainerctl = TRAINER_BENCH_TRAINERCTL;
  int runs = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--trainerctl") {
      trainerctl = argv[i + 1];
    } else if (flag == "--runs") {
      runs = std::max(1, std::atoi(argv[i + 1]));
    } else {
      std::fprintf(stderr, "usage: bench_startup [--trainerctl PATH] [--runs N]\n");
      return 2;
    }
  }
  const std::string examples = TRAINER_BENCH_EXAMPLES;
  const std::vector<std::vector<std::string>> commands = {
      {trainerctl, "version"},
      {trainerctl, "--help"},
      {trainerctl, "validate", "-f", examples + "/ddp/trainjob.yaml", "--builtin-runtimes"},
      {trainerctl, "render", "-f", examples + "/torch-distributed/runtime.yaml", "-f",
       examples + "/torch-distributed/trainjob.yaml"},
  };
  const std::vector<std::string> floor = {"/bin/true"};

  std::printf("%-48s %9s %9s %9s %9s %7s %7s\n", "command (ms; ratio of medians to /bin/true)",
              "cpu best", "cpu med", "wall best", "wall med", "cpu x", "wall x");
  for (const auto& command : commands) {
    std::vector<Sample> ours, base;
    for (int i = 0; i < 3; ++i) {  // warm the page cache
      run_once(command);
      run_once(floor);
    }
    for (int i = 0; i < runs; ++i) {
      // A B, then B A.
      if (i % 2 == 0) {
        ours.push_back(run_once(command));
        base.push_back(run_once(floor));
      } else {
        base.push_back(run_once(floor));
        ours.push_back(run_once(command));
      }
    }
    const Summary o = summarize(ours), b = summarize(base);
    std::string name = "trainerctl";
    for (std::size_t i = 1; i < command.size(); ++i) {
      const auto& part = command[i];
      const auto slash = part.rfind('/');
      name += " " + (slash == std::string::npos ? part : part.substr(slash + 1));
    }
    std::printf("%-48s %9.2f %9.2f %9.2f %9.2f %6.1fx %6.1fx\n", name.c_str(), o.cpu_best,
                o.cpu_median, o.wall_best, o.wall_median, o.cpu_median / b.cpu_median,
                o.wall_median / b.wall_median);
    std::printf("%-48s %9.2f %9.2f %9.2f %9.2f\n", "  /bin/true, alternating with it", b.cpu_best,
                b.cpu_median, b.wall_best, b.wall_median);
  }
  return 0;
}
