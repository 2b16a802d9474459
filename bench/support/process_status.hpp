// SPDX-License-Identifier: Apache-2.0
//
// A field of /proc/self/status in KiB (VmRSS, VmHWM), for the benchmarks' memory figures.
#pragma once

#include <cstdlib>
#include <fstream>
#include <string>

namespace bench {

/// The value of `field` (e.g. "VmHWM") of process `pid` ("self": this one) in KiB, or -1 when
/// the line is missing.
inline long status_kib(const char* field, const std::string& pid = "self") {
  std::ifstream in("/proc/" + pid + "/status");
  std::string line;
  const std::string key = std::string(field) + ":";
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) == 0) return std::atol(line.c_str() + key.size());
  }
  return -1;
}

}  // namespace bench
