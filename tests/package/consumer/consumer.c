/* SPDX-License-Identifier: Apache-2.0 */
/* Links only libtrainer.so through the installed package; checks header/library agreement. */
#include <stdio.h>
#include <string.h>
#include <trainer.h>

int main(void) {
  if (trainer_version_number() != TRAINER_VERSION_NUMBER) {
    fprintf(stderr, "header %d != library %u\n", TRAINER_VERSION_NUMBER,
            (unsigned)trainer_version_number());
    return 1;
  }
  if (strcmp(trainer_version_string(), TRAINER_VERSION_STRING) != 0) return 1;
  printf("consumer_c: libtrainer %s\n", trainer_version_string());
  return 0;
}
