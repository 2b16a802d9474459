/* SPDX-License-Identifier: Apache-2.0 */
/* A shared library that is not a plugin: it has no trainer_plugin_entry. */
#include "trainer.h"

TRAINER_API int not_a_plugin(void);

TRAINER_API int not_a_plugin(void) {
  return 42;
}
