// SPDX-License-Identifier: Apache-2.0
#include "local/liveness.hpp"

#include "local/lifecycle.hpp"

#include <boost/json.hpp>

#include <climits>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>

#include <unistd.h>

namespace trainer::local::detail {
namespace json = boost::json;
namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// /proc/<pid>/stat field 22 (starttime); "" when there is no such process or it has ended (a
// zombie, `Z`, or dead, `X`, in field 3: gone, only not reaped yet). The command name (field 2)
// may hold spaces and parentheses: the fields after it follow the last ')'.
std::string start_time(const std::string& pid) {
  const std::string stat = read_line("/proc/" + pid + "/stat");
  const auto paren = stat.rfind(')');
  if (paren == std::string::npos) return {};
  std::istringstream fields(stat.substr(paren + 1));
  std::string field;
  for (int n = 3; n <= 22 && fields >> field; ++n) {
    if (n == 3 && (field == "Z" || field == "X")) return {};
    if (n == 22) return field;
  }
  return {};
}

std::string pid_namespace() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/ns/pid", buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

std::string string_of(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

}  // namespace

json::object executor_identity() {
  // Read once per process (a tuning run starts an executor per trial); a forked child, another
  // process, reads its own.
  static std::mutex mu;
  static std::int64_t read_for = 0;
  static json::object identity;
  const auto pid = static_cast<std::int64_t>(getpid());
  std::lock_guard<std::mutex> lock(mu);
  if (read_for != pid) {
    identity = json::object{{"pid", pid},
                            {"startTime", start_time(std::to_string(pid))},
                            {"bootId", read_line("/proc/sys/kernel/random/boot_id")},
                            {"pidNamespace", pid_namespace()}};
    read_for = pid;
  }
  return identity;
}

Liveness executor_liveness(const json::value& identity) {
  const auto* o = identity.if_object();
  const auto* pid = o != nullptr ? o->if_contains("pid") : nullptr;
  if (pid == nullptr || !pid->is_int64() || pid->get_int64() <= 0) return Liveness::kUnknown;
  const auto recorded_start = string_of(*o, "startTime");
  const auto recorded_ns = string_of(*o, "pidNamespace");
  const auto here_ns = pid_namespace();
  // Another PID namespace (a container) numbers processes differently; without /proc, nothing
  // can be said.
  if (recorded_start.empty() || recorded_ns.empty() || here_ns.empty() || recorded_ns != here_ns) {
    return Liveness::kUnknown;
  }
  const auto boot = string_of(*o, "bootId");
  if (!boot.empty() && boot != read_line("/proc/sys/kernel/random/boot_id")) return Liveness::kGone;
  const auto now_start = start_time(std::to_string(pid->get_int64()));
  return now_start == recorded_start ? Liveness::kAlive : Liveness::kGone;
}

void mark_lost_executor(json::value& state) {
  auto* o = state.if_object();
  if (o == nullptr) return;
  const auto* finished = o->if_contains("finished");
  const auto* executor = o->if_contains("executor");
  if (executor == nullptr || (finished != nullptr && finished->is_bool() && finished->get_bool())) {
    return;
  }
  if (executor_liveness(*executor) != Liveness::kGone) return;
  const auto pid = json::serialize(executor->as_object().at("pid"));
  const std::string message = "the executor of this run (pid " + pid +
                              ") ended without finishing it; its pods were stopped with it";
  const auto now = rfc3339(Clock::now());
  (*o)["phase"] = "Failed";
  auto& conditions = (*o)["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  conditions.get_array().push_back(json::object{{"type", "Failed"},
                                                {"status", "True"},
                                                {"reason", "ExecutorLost"},
                                                {"message", message},
                                                {"lastTransitionTime", now}});
  std::int64_t lost = 0;
  if (auto* pods = o->if_contains("pods"); pods != nullptr && pods->is_array()) {
    for (auto& p : pods->get_array()) {
      auto* po = p.if_object();
      if (po == nullptr) continue;
      const auto phase = string_of(*po, "phase");
      if (phase == "Succeeded" || phase == "Failed") continue;
      ++lost;
      (*po)["phase"] = "Failed";
      (*po)["reason"] = "ExecutorLost";
      (*po)["message"] = message;
    }
  }
  if (auto* counts = o->if_contains("podCounts"); counts != nullptr && counts->is_object()) {
    auto& c = counts->get_object();
    const auto failed =
        c.contains("failed") && c.at("failed").is_int64() ? c.at("failed").get_int64() : 0;
    c["pending"] = 0;
    c["running"] = 0;
    c["failed"] = failed + lost;
  }
  (*o)["finished"] = true;
  (*o)["executorLost"] = true;
}

}  // namespace trainer::local::detail
