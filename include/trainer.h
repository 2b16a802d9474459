/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libtrainer C ABI: the only binary contract of libtrainer.
 *
 * Conventions (every function below follows them unless its comment says otherwise):
 * - Status: functions return `trainer_status`; TRAINER_OK (0) on success, a negative
 *   TRAINER_E_* code on failure. Codes are never renumbered; new ones are only appended.
 * - Errors: the last parameter `trainer_error **err` is optional. When non-NULL and the call
 *   fails, `*err` receives a new error object the caller owns and frees with
 *   trainer_error_free(); on success `*err` is set to NULL. Errors are never thread-local state.
 * - Inputs: `(const char *data, size_t len)` pairs are borrowed for the duration of the call;
 *   the library copies what it keeps. They need not be NUL-terminated.
 * - Outputs: text comes back in a caller-provided `trainer_buffer` (initialise it with
 *   TRAINER_BUFFER_INIT) and is released with trainer_buffer_free(), never free().
 * - Ownership transfer is marked with TRAINER_OWN; everything else is borrowed.
 * - `_free(NULL)` is always a no-op.
 * - No exception, panic or abort crosses this boundary: a C++ exception inside the library
 *   becomes TRAINER_E_INTERNAL or TRAINER_E_NOMEM.
 * - Thread safety: global functions are thread-safe. Each handle type states its class:
 *   "shareable" (immutable, any number of threads), "movable" (any thread, one at a time).
 * - The exported symbol set is the same in every build; a feature compiled out returns
 *   TRAINER_E_UNSUPPORTED and is absent from trainer_features().
 */
#ifndef TRAINER_H
#define TRAINER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version ------------------------------------------------------------------------------ */

#define TRAINER_VERSION_MAJOR 0
#define TRAINER_VERSION_MINOR 1
#define TRAINER_VERSION_PATCH 0
#define TRAINER_VERSION_STRING "0.1.0"
/** major * 10000 + minor * 100 + patch */
#define TRAINER_VERSION_NUMBER \
  (TRAINER_VERSION_MAJOR * 10000 + TRAINER_VERSION_MINOR * 100 + TRAINER_VERSION_PATCH)
/** True when the header is at least version a.b.c. */
#define TRAINER_VERSION_CHECK(a, b, c) (TRAINER_VERSION_NUMBER >= ((a) * 10000 + (b) * 100 + (c)))

/* ---- Export and annotation macros ---------------------------------------------------------- */

#if defined(_WIN32)
#if defined(TRAINER_BUILDING_LIBRARY)
#define TRAINER_API __declspec(dllexport)
#else
#define TRAINER_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define TRAINER_API __attribute__((visibility("default")))
#else
#define TRAINER_API
#endif

/** Marks a parameter or result whose ownership passes to the receiver. */
#define TRAINER_OWN

/* ---- Status codes ------------------------------------------------------------------------- */

/** Result of every fallible call. @since 0.1 */
typedef int trainer_status;

#define TRAINER_OK 0
#define TRAINER_E_INVALID_ARGUMENT (-1) /**< unusable argument (NULL where not allowed, ...) */
#define TRAINER_E_PARSE (-2)            /**< input is not well-formed YAML/JSON or mistyped */
#define TRAINER_E_INVALID (-3)          /**< input violates admission rules; see field errors */
#define TRAINER_E_LIMIT (-4)            /**< input exceeds a configured limit */
#define TRAINER_E_NOT_FOUND (-5)        /**< a referenced object does not exist */
#define TRAINER_E_UNSUPPORTED (-6)      /**< feature compiled out or not supported */
#define TRAINER_E_NOMEM (-7)            /**< allocation failed */
#define TRAINER_E_INTERNAL (-8)         /**< a bug in libtrainer */
#define TRAINER_E_USER (-9)             /**< a user callback reported failure */
#define TRAINER_E_IO (-10)              /**< an OS or network operation failed */
#define TRAINER_E_TIMEOUT (-11)         /**< an operation did not complete in time */

/** Library version at run time (TRAINER_VERSION_NUMBER of the built library). Thread-safe.
 *  @since 0.1 */
TRAINER_API uint32_t trainer_version_number(void);
/** Library version string, static storage, never NULL. Thread-safe. @since 0.1 */
TRAINER_API const char *trainer_version_string(void);

/** Feature bits returned by trainer_features(). @since 0.1 */
#define TRAINER_FEATURE_MPI (1u << 0)  /**< Open MPI collectives backend compiled in */
#define TRAINER_FEATURE_NCCL (1u << 1) /**< CUDA/NCCL collectives backend compiled in */
/** Bitmask of TRAINER_FEATURE_* compiled into this library. Thread-safe. @since 0.1 */
TRAINER_API uint32_t trainer_features(void);

/** Short constant name of a status code ("TRAINER_E_PARSE"), static storage; "TRAINER_E_?"
 *  for unknown codes. Thread-safe. @since 0.1 */
TRAINER_API const char *trainer_status_name(trainer_status status);

/* ---- Buffers ------------------------------------------------------------------------------ */

/** Library-allocated bytes. `data` is NUL-terminated for convenience, `len` (without the NUL)
 *  is authoritative. Release with trainer_buffer_free(). @since 0.1 */
typedef struct trainer_buffer {
  char *data;
  size_t len;
} trainer_buffer;

#define TRAINER_BUFFER_INIT {NULL, 0}

/** Frees the bytes of `buf` (if any) and resets it to TRAINER_BUFFER_INIT. NULL is a no-op.
 *  Thread-safe for distinct buffers. @since 0.1 */
TRAINER_API void trainer_buffer_free(trainer_buffer *buf);

/* ---- Errors ------------------------------------------------------------------------------- */

/** An error: status code, message and, for TRAINER_E_INVALID/TRAINER_E_PARSE, the field
 *  violations. Movable; owned by the caller; freed with trainer_error_free(). @since 0.1 */
typedef struct trainer_error trainer_error;

/** Frees an error. NULL is a no-op. @since 0.1 */
TRAINER_API void trainer_error_free(TRAINER_OWN trainer_error *err);
/** The status code of `err` (TRAINER_E_INVALID_ARGUMENT for NULL). @since 0.1 */
TRAINER_API trainer_status trainer_error_code(const trainer_error *err);
/** The message, borrowed from `err` (valid until it is freed); "" for NULL. @since 0.1 */
TRAINER_API const char *trainer_error_message(const trainer_error *err);
/** Number of field violations (0 for NULL). @since 0.1 */
TRAINER_API size_t trainer_error_field_count(const trainer_error *err);
/** Field path of violation `i` (`spec.trainer.numNodes`), borrowed; NULL if out of range. */
TRAINER_API const char *trainer_error_field_path(const trainer_error *err, size_t i);
/** Kubernetes type name of violation `i` (`FieldValueInvalid`, ...), static; NULL if out of
 *  range. */
TRAINER_API const char *trainer_error_field_type(const trainer_error *err, size_t i);
/** Offending value of violation `i` as JSON text, borrowed; NULL if out of range or omitted. */
TRAINER_API const char *trainer_error_field_value(const trainer_error *err, size_t i);
/** Detail of violation `i`, borrowed; NULL if out of range. */
TRAINER_API const char *trainer_error_field_detail(const trainer_error *err, size_t i);
/** Full Kubernetes text of violation `i` (`<path>: <Type>: <value>: <detail>`), borrowed; NULL
 *  if out of range. */
TRAINER_API const char *trainer_error_field_string(const trainer_error *err, size_t i);

#ifdef __cplusplus
}
#endif

/* The data plane (trainer_comm_*) lives in its own section header. */
#include "trainer/collectives.h"

#endif /* TRAINER_H */
