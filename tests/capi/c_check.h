/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Checks for the pure-C tests of the C ABI: each failing check prints file, line and what failed
 * (with the library's error message for status checks) and exits non-zero.
 */
#ifndef TRAINER_TESTS_C_CHECK_H
#define TRAINER_TESTS_C_CHECK_H

#include "trainer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void c_check_fail(const char* file, int line, const char* what) {
  fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
  exit(1);
}

#define CHECK(cond)                                       \
  do {                                                    \
    if (!(cond)) c_check_fail(__FILE__, __LINE__, #cond); \
  } while (0)

static inline void c_check_str(const char* file, int line, const char* actual,
                               const char* expected) {
  if (actual == NULL || expected == NULL || strcmp(actual, expected) != 0) {
    fprintf(stderr, "%s:%d: strings differ\n  actual:   %s\n  expected: %s\n", file, line,
            actual == NULL ? "(NULL)" : actual, expected == NULL ? "(NULL)" : expected);
    exit(1);
  }
}
#define CHECK_STR(actual, expected) c_check_str(__FILE__, __LINE__, (actual), (expected))

/* Checks the status and, on a mismatch, prints the error the library returned. */
static inline void c_check_status(const char* file, int line, trainer_status actual,
                                  trainer_status expected, const trainer_error* err) {
  if (actual != expected) {
    fprintf(stderr, "%s:%d: status %s (%d), expected %s (%d); error: %s\n", file, line,
            trainer_status_name(actual), actual, trainer_status_name(expected), expected,
            trainer_error_message(err));
    exit(1);
  }
}
#define CHECK_STATUS(actual, expected, err) \
  c_check_status(__FILE__, __LINE__, (actual), (expected), (err))

/* A pointer value that no call returns, to see that out-parameters get reset. */
static int c_check_sentinel_storage;
#define SENTINEL(type) ((type*)(void*)&c_check_sentinel_storage)

#endif /* TRAINER_TESTS_C_CHECK_H */
