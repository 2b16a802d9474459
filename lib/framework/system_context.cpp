// SPDX-License-Identifier: Apache-2.0
// The one place where a render's outside inputs come from the machine (randomness, the clock,
// OpenSSL's key generation); the pipeline itself only ever sees them through RenderContext.
#include "api/time_text.hpp"
#include "trainer/render.hpp"
#include "trainer/ssh.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>
#include <utility>

namespace trainer {

std::string random_uuid() {
  std::random_device rd;
  std::array<unsigned char, 16> b{};
  for (auto& byte : b) byte = static_cast<unsigned char>(rd() & 0xffU);
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
