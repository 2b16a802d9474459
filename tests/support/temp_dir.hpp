// SPDX-License-Identifier: Apache-2.0
//
// A temporary folder for a test (kubeconfigs, run folders, scripts), removed with everything in
// it when the object goes, so a test run leaves nothing behind in /tmp.
#pragma once

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace trainer::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "trainer-test") {
    std::string templ = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string operator/(const std::string& name) const { return path_ + "/" + name; }

  /// Writes `text` to `name` (folders created), with `mode`; returns the full path.
  std::string write(const std::string& name, const std::string& text, unsigned mode = 0644) const {
    const std::string full = path_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(full).parent_path());
    {
      std::ofstream out(full, std::ios::binary | std::ios::trunc);
      out << text;
    }
    ::chmod(full.c_str(), static_cast<mode_t>(mode));
    return full;
  }

  /// An executable `/bin/sh` script.
  std::string script(const std::string& name, const std::string& body) const {
    return write(name, "#!/bin/sh\n" + body, 0755);
  }

 private:
  std::string path_;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace trainer::testing
