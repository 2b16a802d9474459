// SPDX-License-Identifier: Apache-2.0
#include "local/run_folder.hpp"

#include "local/liveness.hpp"

#include "trainer/json_path.hpp"

#include "trainer/local.hpp"

#include <boost/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainer::local {
namespace json = boost::json;

namespace detail {

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) close(fd_);
}

int Fd::release() noexcept {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

namespace {

tl::unexpected<Error> io_error(const std::string& what, const std::string& shown,
                               std::string_view rel) {
  const int err = errno;
  std::string where = shown;
  if (!rel.empty()) where += "/" + std::string(rel);
  std::string why = std::strerror(err);
  if (err == ELOOP) why = "a symbolic link, which the executor does not follow";
  return fail(ErrorCode::kIo, what + " " + where + ": " + why);
}

// The elements of a relative path; "" and "." are skipped.
std::vector<std::string_view> elements(std::string_view rel) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0; start <= rel.size();) {
    auto slash = rel.find('/', start);
    if (slash == std::string_view::npos) slash = rel.size();
    const auto e = rel.substr(start, slash - start);
    if (!e.empty() && e != ".") out.push_back(e);
    start = slash + 1;
  }
  return out;
}

// The one folder `name` in `dir`, created when missing and `create`, never a symbolic link.
Result<Fd> open_dir_at(int dir, const std::string& name, bool create, unsigned mode,
                       const std::string& shown, std::string_view so_far) {
  if (name == "..") {
    errno = EINVAL;
    return io_error("refusing a '..' element in", shown, so_far);
  }
  if (create && mkdirat(dir, name.c_str(), static_cast<mode_t>(mode)) != 0 && errno != EEXIST) {
    return io_error("creating", shown, so_far);
  }
  const int fd = openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    // With O_DIRECTORY a symbolic link fails as "not a directory": say what it is.
    struct stat st {};
    if (errno == ENOTDIR && fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode)) {
      errno = ELOOP;
    }
    return io_error("opening", shown, so_far);
  }
  return Fd(fd);
}

}  // namespace

Result<Fd> open_root(const std::string& path, unsigned mode) {
  // Its parent is there nearly always (a run's folder, a trial's below the tuning run's): one
  // mkdir then, instead of one per element of the path.
  if (mkdir(path.c_str(), static_cast<mode_t>(mode)) != 0 && errno != EEXIST) {
    for (std::size_t pos = 0; pos != std::string::npos;) {
      pos = path.find('/', pos + 1);
      const std::string part = path.substr(0, pos);
      if (part.empty()) continue;
      // Parents get the usual 0755; `mode` is the folder's own.
      const auto m = static_cast<mode_t>(pos == std::string::npos ? mode : 0755);
      if (mkdir(part.c_str(), m) != 0 && errno != EEXIST) {
        return io_error("creating", part, "");
      }
    }
  }
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return io_error("opening", path, "");
  return Fd(fd);
}

Result<Fd> open_below(int dir, std::string_view rel, bool create, const std::string& shown,
                      unsigned mode) {
  if (dir < 0) {  // never AT_FDCWD: everything is found below a folder already open
    errno = EBADF;
    return io_error("opening", shown, "");
  }
  const auto parts = elements(rel);
  if (parts.empty()) {
    Fd same(fcntl(dir, F_DUPFD_CLOEXEC, 0));
    if (same.get() < 0) return io_error("opening", shown, "");
    return same;
  }
  // The first element is opened from `dir` itself, each next one from the last.
  Fd current;
  std::string so_far;
  for (const auto e : parts) {
    so_far += (so_far.empty() ? "" : "/") + std::string(e);
    const int from = current.get() >= 0 ? current.get() : dir;
    auto next = open_dir_at(from, std::string(e), create, mode, shown, so_far);
    if (!next) return tl::unexpected(std::move(next.error()));
    current = std::move(*next);
  }
  return current;
}

Result<Node> open_node_below(int dir, std::string_view rel, const std::string& shown) {
  const auto parts = elements(rel);
  if (parts.empty()) {
    Fd fd(fcntl(dir, F_DUPFD_CLOEXEC, 0));
    if (fd.get() < 0) return io_error("opening", shown, "");
    return Node{std::move(fd), true};
  }
  const std::string last(parts.back());
  const auto parent_rel = rel.substr(0, static_cast<std::size_t>(parts.back().data() - rel.data()));
  auto parent = open_below(dir, parent_rel, true, shown);
  if (!parent) return tl::unexpected(std::move(parent.error()));
  if (last == "..") {
    errno = EINVAL;
    return io_error("refusing a '..' element in", shown, rel);
  }
  // A missing last element becomes a folder, as the kubelet does for a subPath.
  if (mkdirat(parent->get(), last.c_str(), 0755) != 0 && errno != EEXIST) {
    return io_error("creating", shown, rel);
  }
  const int fd = openat(parent->get(), last.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return io_error("opening", shown, rel);
  Node node{Fd(fd), false};
  struct stat st {};
  if (fstat(fd, &st) != 0) return io_error("inspecting", shown, rel);
  if (S_ISLNK(st.st_mode)) {
    errno = ELOOP;
    return io_error("opening", shown, rel);
  }
  node.is_dir = S_ISDIR(st.st_mode);
  return node;
}

Result<Fd> create_file_at(int dir, std::string_view name, unsigned mode, const std::string& shown) {
  const std::string n(name);
  if (n.empty() || n == "." || n == ".." || n.find('/') != std::string::npos) {
    errno = EINVAL;
    return io_error("refusing the file name", shown, name);
  }
  // Replace, never write through: O_EXCL|O_NOFOLLOW creates a new file or fails, and an
  // existing entry (a link planted there, hard or symbolic) is removed before the one retry.
  const auto create = [&] {
    return openat(dir, n.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  };
  int fd = create();
  if (fd < 0 && errno == EEXIST) {
    if (unlinkat(dir, n.c_str(), 0) != 0 && errno != ENOENT) {
      return io_error("replacing", shown, name);
    }
    fd = create();
  }
  if (fd < 0) return io_error("creating", shown, name);
  Fd out(fd);
  // The mode exactly, whatever the umask: created 0600, then set.
  if (fchmod(fd, static_cast<mode_t>(mode)) != 0)
    return io_error("setting the mode of", shown, name);
  return out;
}

Result<void> write_file_below(int dir, std::string_view rel, std::string_view content,
                              unsigned mode, const std::string& shown) {
  const auto slash = rel.rfind('/');
  Fd parent;
  std::string_view name = rel;
  if (slash != std::string_view::npos) {
    auto opened = open_below(dir, rel.substr(0, slash), true, shown);
    if (!opened) return tl::unexpected(std::move(opened.error()));
    parent = std::move(*opened);
    dir = parent.get();
    name = rel.substr(slash + 1);
  }
  auto file = create_file_at(dir, name, mode, shown);
  if (!file) return tl::unexpected(std::move(file.error()));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(file->get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io_error("writing", shown, rel);
    done += static_cast<std::size_t>(n);
  }
  return {};
}

Result<void> write_state(int dir, const std::string& run_dir, const json::value& state) {
  auto written =
      write_file_below(dir, ".state.json.tmp", json::serialize(state) + "\n", 0644, run_dir);
  if (!written) return written;
  if (renameat(dir, ".state.json.tmp", dir, "state.json") != 0) {
    return io_error("renaming", run_dir, ".state.json.tmp");
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
  return run_dir + "/" + detail::kRunLogName;
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

std::string progress_line(const json::value& status) {
  using trainer::find_array;
  using trainer::find_int;
  using trainer::find_object;
  using trainer::find_string;
  const auto* o = status.if_object();
  const auto* trainer_status = o != nullptr ? find_object(*o, "trainerStatus") : nullptr;
  if (trainer_status == nullptr) return {};
  std::vector<std::string> parts;
  // The values as `trainerctl describe` shows a cluster TrainJob's: percent and seconds.
  if (const auto p = find_int(*trainer_status, "progressPercentage")) {
    parts.push_back(std::to_string(*p) + "%");
  }
  if (const auto s = find_int(*trainer_status, "estimatedRemainingSeconds")) {
    parts.push_back(std::to_string(*s) + "s left");
  }
  std::string metrics;
  if (const auto* list = find_array(*trainer_status, "metrics")) {
    for (const auto& metric : *list) {
      const auto* m = metric.if_object();
      const auto name = m != nullptr ? find_string(*m, "name") : std::nullopt;
      const auto value = m != nullptr ? find_string(*m, "value") : std::nullopt;
      if (!name || !value) continue;
      metrics += (metrics.empty() ? "" : " ") + *name + "=" + *value;
    }
  }
  if (!metrics.empty()) parts.push_back(std::move(metrics));
  if (parts.empty()) parts.emplace_back("reported");
  std::string out = "progress:";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? " " : ", ") + parts[i];
  return out;
}

}  // namespace trainer::local
