/* SPDX-License-Identifier: Apache-2.0 */
/* A test plugin built for a plugin ABI major version this library does not support. */
#include "trainer.h"

TRAINER_API const trainer_plugin_descriptor* trainer_plugin_entry(const trainer_plugin_host* h);

TRAINER_API const trainer_plugin_descriptor* trainer_plugin_entry(const trainer_plugin_host* h) {
  static trainer_plugin_descriptor desc = {0};
  (void)h;
  desc.abi_version = (uint32_t)2 << 16;
  desc.name = "FromTheFuture";
  return &desc;
}
