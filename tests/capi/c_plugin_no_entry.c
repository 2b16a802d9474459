/* SPDX-License-Identifier: Apache-2.0 */
/* A shared library that loads but exports no trainer_plugin_entry (c_plugin_test.c: NOT_FOUND). */
__attribute__((visibility("default"))) int not_a_trainer_plugin(void) {
  return 42;
}
