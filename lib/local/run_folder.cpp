// SPDX-License-Identifier: Apache-2.0
#include "local/run_folder.hpp"

#include "local/liveness.hpp"

#include "trainer/local.hpp"

#include <boost/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainer::local {
namespace json = boost::json;

namespace detail {

Result<void> make_dirs(const std::string& path, unsigned mode) {
  for (std::size_t pos = 0; pos != std::string::npos;) {
    pos = path.find('/', pos + 1);
    const std::string part = path.substr(0, pos);
    if (part.empty()) continue;
    if (mkdir(part.c_str(), static_cast<mode_t>(mode)) != 0 && errno != EEXIST) {
      return fail(ErrorCode::kIo, "creating " + part + ": " + std::strerror(errno));
    }
  }
  return {};
}

Result<void> write_file(const std::string& path, const std::string& content, unsigned mode) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return fail(ErrorCode::kIo, "writing " + path + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      close(fd);
      return fail(ErrorCode::kIo, "writing " + path + ": " + std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  fchmod(fd, static_cast<mode_t>(mode));
  close(fd);
  return {};
}

Result<void> write_state(const std::string& run_dir, const json::value& state) {
  const std::string tmp = run_dir + "/.state.json.tmp";
  auto written = write_file(tmp, json::serialize(state) + "\n");
  if (!written) return written;
  if (rename(tmp.c_str(), (run_dir + "/state.json").c_str()) != 0) {
    return fail(ErrorCode::kIo, "renaming " + tmp + ": " + std::strerror(errno));
  }
  return {};
}

}  // namespace detail

const char* to_string(Phase phase) noexcept {
  switch (phase) {
    case Phase::kPending: return "Pending";
    case Phase::kRunning: return "Running";
    case Phase::kSuspended: return "Suspended";
    case Phase::kComplete: return "Complete";
    case Phase::kFailed: return "Failed";
  }
  return "Unknown";
}

Result<json::value> read_status(const std::string& run_dir) {
  std::ifstream in(run_dir + "/state.json");
  if (!in) return fail(ErrorCode::kNotFound, "no local run in " + run_dir + " (no state.json)");
  std::stringstream buf;
  buf << in.rdbuf();
  boost::system::error_code ec;
  auto v = json::parse(buf.str(), ec);
  if (ec || !v.is_object()) {
    return fail(ErrorCode::kParse, run_dir + "/state.json: not a run state: " + ec.message());
  }
  // A run whose executor is gone (SIGKILLed) says so instead of "Running" forever.
  detail::mark_lost_executor(v);
  return v;
}

std::string combined_log_path(const std::string& run_dir) {
  return run_dir + "/run.log";
}

Result<std::string> pod_log_path(const std::string& run_dir, std::string_view pod) {
  auto state = read_status(run_dir);
  if (!state) return tl::unexpected(state.error());
  const auto* pods = state->get_object().if_contains("pods");
  if (pods != nullptr && pods->is_array()) {
    for (const auto& p : pods->get_array()) {
      const auto& o = p.get_object();
      const auto field = [&](const char* k) -> std::string_view {
        const auto* v = o.if_contains(k);
        return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : "";
      };
      if (field("name") == pod || field("hostname") == pod || field("prefix") == pod) {
        if (field("log").empty()) break;
        return std::string(field("log"));
      }
    }
  }
  // Earlier attempts keep their files: a pod name of any attempt names its log.
  const std::string path = run_dir + "/logs/" + std::string(pod) + ".log";
  if (pod.find('/') == std::string_view::npos && access(path.c_str(), R_OK) == 0) return path;
  return fail(ErrorCode::kNotFound, "no pod \"" + std::string(pod) + "\" with a log in " + run_dir);
}

std::string summary_line(const json::value& status) {
  const auto* o = status.if_object();
  if (o == nullptr) return {};
  const auto num = [](const json::value* v) -> long long {
    if (v == nullptr) return 0;
    if (v->is_int64()) return v->get_int64();
    if (v->is_double()) return static_cast<long long>(std::floor(v->get_double()));
    return 0;
  };
  const auto* counts = o->if_contains("podCounts");
  const auto* c = counts != nullptr ? counts->if_object() : nullptr;
  const auto count = [&](const char* k) { return c != nullptr ? num(c->if_contains(k)) : 0; };
  const auto* phase = o->if_contains("phase");
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s: pods %lld pending, %lld running, %lld succeeded, %lld failed; restarts %lld "
                "(jobset %lld); %llds",
                phase != nullptr && phase->is_string() ? phase->get_string().c_str() : "?",
                count("pending"), count("running"), count("succeeded"), count("failed"),
                count("restarts"), num(o->if_contains("restarts")),
                num(o->if_contains("elapsedSeconds")));
  return buf;
}

}  // namespace trainer::local
