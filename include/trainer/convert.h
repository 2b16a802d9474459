/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libtrainer C ABI, converter section (trainer_convert*). Included by trainer.h; the
 * conventions stated at the top of trainer.h apply.
 *
 * Training Operator v1 jobs (kubeflow.org/v1 PyTorchJob, TFJob, MPIJob, XGBoostJob, JAXJob,
 * PaddleJob) become a Trainer v2 TrainJob, with a TrainingRuntime generated next to it where no
 * built-in runtime reproduces the job's pods; Katib Experiments (kubeflow.org/v1beta1) become
 * OptimizationJobs. This is `trainerctl convert` (trainer::convert in trainer/convert.hpp);
 * docs/convert.md describes the mapping and the warnings.
 */
#ifndef TRAINER_CONVERT_H
#define TRAINER_CONVERT_H

#include "trainer.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of trainer_convert(). A pointer left NULL (or a string left "") means the default
 *  shown in brackets. Initialise with TRAINER_CONVERT_OPTIONS_INIT or
 *  trainer_convert_options_init(); fields are only ever appended, and `version` says which
 *  fields the caller's struct has. Every string is borrowed for the call and must be
 *  NUL-terminated. @since 0.1 */
typedef struct trainer_convert_options {
  uint32_t version;                   /**< TRAINER_CONVERT_OPTIONS_VERSION */
  const char* namespace_name;         /**< namespace of a job that names none, as
                                           `kubectl --namespace` ["default"] */
  int32_t strict;                     /**< non-zero: every warning is an error instead
                                           (TRAINER_E_INVALID, one field error per warning) [0] */
  trainer_format format;              /**< the text of trainer_convert_result_text():
                                           TRAINER_FORMAT_YAML a YAML stream, one document per
                                           object; TRAINER_FORMAT_JSON or _JSON_PRETTY a `v1`
                                           `List` [TRAINER_FORMAT_YAML] */
  const trainer_parse_options* parse; /**< limits for parsing the input [library defaults] */
} trainer_convert_options;

/** Struct versions: 1 ends with `parse`. */
#define TRAINER_CONVERT_OPTIONS_VERSION 1
#define TRAINER_CONVERT_OPTIONS_INIT \
  { TRAINER_CONVERT_OPTIONS_VERSION, NULL, 0, TRAINER_FORMAT_YAML, NULL }

/** Initialises `opts` like TRAINER_CONVERT_OPTIONS_INIT for struct version `version`.
 *  Errors: TRAINER_E_INVALID_ARGUMENT when `opts` is NULL or `version` is 0 or above
 *  TRAINER_CONVERT_OPTIONS_VERSION. Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_convert_options_init(trainer_convert_options* opts,
                                                        uint32_t version);

/** What a conversion produced: the objects and the warnings. Shareable (immutable): its
 *  accessors may be called from any number of threads. Owned by the caller; freed with
 *  trainer_convert_result_free(). Strings it hands out are borrowed and valid until it is freed.
 *  @since 0.1 */
typedef struct trainer_convert_result trainer_convert_result;

/** Converts the documents of `data[0..len)` (a YAML stream, or JSON text; a `v1` `List`
 *  contributes its items) as `trainerctl convert` does: every Training Operator v1 job and Katib
 *  Experiment is replaced by its Trainer v2 objects, in apply order (a generated TrainingRuntime,
 *  then the TrainJob; an OptimizationJob); every other document is kept as it is, so the output
 *  replaces the input. A v1 field that Trainer v2 cannot express is a warning naming its path
 *  (`PyTorchJob default/mnist: spec.runPolicy.cleanPodPolicy: ...`). `opts` may be NULL (all
 *  defaults). On success `*out` holds a new result; on failure `*out` is set to NULL.
 *  Errors: TRAINER_E_INVALID_ARGUMENT (`out` NULL, `data` NULL with len > 0, an unsupported
 *  options version or format); TRAINER_E_PARSE (malformed input); TRAINER_E_LIMIT;
 *  TRAINER_E_INVALID (a job that Training Operator v1 itself refuses or that cannot be converted,
 *  and under `strict` every warning: `*err` holds one field error per problem, its path in the
 *  v1 object); TRAINER_E_NOMEM.
 *  Thread-safe: distinct calls may run concurrently. @since 0.1 */
TRAINER_API trainer_status trainer_convert(const char* data, size_t len,
                                           const trainer_convert_options* opts,
                                           TRAINER_OWN trainer_convert_result** out,
                                           trainer_error** err);

/** Frees a result. NULL is a no-op. @since 0.1 */
TRAINER_API void trainer_convert_result_free(TRAINER_OWN trainer_convert_result* result);
/** Every object of `result` as one text in the `format` of the options (NUL-terminated),
 *  borrowed; "" for NULL (and a YAML stream of no objects). @since 0.1 */
TRAINER_API const char* trainer_convert_result_text(const trainer_convert_result* result);
/** Number of objects (0 for NULL). @since 0.1 */
TRAINER_API size_t trainer_convert_result_count(const trainer_convert_result* result);
/** Object `i` as compact JSON text (NUL-terminated), borrowed; NULL when out of range.
 *  @since 0.1 */
TRAINER_API const char* trainer_convert_result_json(const trainer_convert_result* result, size_t i);
/** Number of warnings (0 for NULL). @since 0.1 */
TRAINER_API size_t trainer_convert_result_warning_count(const trainer_convert_result* result);
/** Warning `i` (kubectl prints it as `Warning: <text>`), borrowed; NULL when out of range.
 *  @since 0.1 */
TRAINER_API const char* trainer_convert_result_warning(const trainer_convert_result* result,
                                                       size_t i);

#ifdef __cplusplus
}
#endif

#endif /* TRAINER_CONVERT_H */
