// SPDX-License-Identifier: Apache-2.0
#include "render_context.hpp"

#include "trainer/render.hpp"
#include "trainer/ssh.hpp"

namespace trainerctl {

trainer::RenderContext make_render_context(std::string uid,
                                           std::optional<std::string> ssh_private_key_file) {
  trainer::RenderContext ctx = trainer::system_render_context(std::move(uid));
  if (ssh_private_key_file) {
    ctx.generate_ssh_key = [path = *ssh_private_key_file] {
      return trainer::read_ssh_key_pair_file(path);
    };
  }
  return ctx;
}

}  // namespace trainerctl
