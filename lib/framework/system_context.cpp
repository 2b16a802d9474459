// SPDX-License-Identifier: Apache-2.0
// The one place where a render's outside inputs come from the machine (randomness, the clock,
// OpenSSL's key generation); the pipeline itself only ever sees them through RenderContext.
#include "api/time_text.hpp"
#include "trainer/render.hpp"
#include "trainer/ssh.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>
#include <utility>

#include <sys/random.h>

namespace trainer {

std::string random_uuid() {
  std::array<unsigned char, 16> b{};
  // One getrandom call for the 16 bytes: a std::random_device per UUID opened /dev/urandom and
  // read it 16 times (a trial of an OptimizationJob makes one UUID; issue 22). Blocks only
  // before the kernel's pool is first initialised, as /dev/urandom's reader would not.
  std::size_t got = 0;
  while (got < b.size()) {
    const ssize_t n = getrandom(b.data() + got, b.size() - got, 0);
    if (n > 0) {
      got += static_cast<std::size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      std::random_device rd;  // getrandom(2) missing (ENOSYS): the library's other source
      for (; got < b.size(); ++got) b[got] = static_cast<unsigned char>(rd() & 0xffU);
    }
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0fU) | 0x40U);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3fU) | 0x80U);  // RFC 4122 variant
  char text[37];
  std::snprintf(text, sizeof text,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return text;
}

RenderContext system_render_context(std::string uid) {
  RenderContext ctx;
  ctx.train_job_uid = uid.empty() ? random_uuid() : std::move(uid);
  ctx.now = [] { return detail::format_rfc3339(std::chrono::system_clock::now()); };
  ctx.generate_ssh_key = [] { return generate_ssh_key_pair(); };
  return ctx;
}

}  // namespace trainer
