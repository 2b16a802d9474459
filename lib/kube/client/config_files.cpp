// SPDX-License-Identifier: Apache-2.0
#include "kube/client/config_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace trainer::kube::detail {

std::string errno_text(int err) {
  std::string text = std::strerror(err);
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') {
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  }
  return text;
}

Result<std::string> read_file(const std::string& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(ErrorCode::kIo, "open " + path + ": " + errno_text(errno));
  std::string out;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return fail(ErrorCode::kIo, "read " + path + ": " + errno_text(err));
    }
    if (n == 0) break;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      ::close(fd);
      return fail(ErrorCode::kLimit,
                  "read " + path + ": file is larger than " + std::to_string(max_bytes) + " bytes");
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string resolve_against(const std::string& dir, const std::string& path) {
  if (path.empty() || path[0] == '/' || dir.empty()) return path;
  if (dir.back() == '/') return dir + path;
  return dir + "/" + path;
}

std::string folder_of(const std::string& file) {
  std::string absolute = file;
  if (!file.empty() && file[0] != '/') {
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd) != nullptr) absolute = std::string(cwd) + "/" + file;
  }
  const auto slash = absolute.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return absolute.substr(0, slash);
}

std::string env_or(const std::optional<std::string>& override, const char* name) {
  if (override) return *override;
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

std::string trim_space(std::string_view text) {
  const auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && is_space(text[begin])) ++begin;
  while (end > begin && is_space(text[end - 1])) --end;
  return std::string(text.substr(begin, end - begin));
}

}  // namespace trainer::kube::detail
