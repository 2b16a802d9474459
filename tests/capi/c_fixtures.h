/* SPDX-License-Identifier: Apache-2.0 */
/* Inputs shared by the pure-C tests of the C ABI. */
#ifndef TRAINER_TESTS_C_FIXTURES_H
#define TRAINER_TESTS_C_FIXTURES_H

/* A ClusterTrainingRuntime `torch-distributed` labelled deprecated: its webhook and the webhook of
 * a TrainJob that references it each give a deprecation warning. A string literal, to be joined
 * with others. */
#define DEPRECATED_TORCH_RUNTIME_YAML                                      \
  "apiVersion: trainer.kubeflow.org/v1alpha1\n"                            \
  "kind: ClusterTrainingRuntime\n"                                         \
  "metadata:\n"                                                            \
  "  name: torch-distributed\n"                                            \
  "  labels:\n"                                                            \
  "    trainer.kubeflow.org/support: deprecated\n"                         \
  "spec:\n"                                                                \
  "  mlPolicy:\n"                                                          \
  "    numNodes: 1\n"                                                      \
  "    torch: {}\n"                                                        \
  "  template:\n"                                                          \
  "    spec:\n"                                                            \
  "      replicatedJobs:\n"                                                \
  "        - name: node\n"                                                 \
  "          template:\n"                                                  \
  "            metadata:\n"                                                \
  "              labels:\n"                                                \
  "                trainer.kubeflow.org/trainjob-ancestor-step: trainer\n" \
  "            spec:\n"                                                    \
  "              template:\n"                                              \
  "                spec:\n"                                                \
  "                  containers:\n"                                        \
  "                    - name: node\n"                                     \
  "                      image: pytorch:2.5\n"

#endif /* TRAINER_TESTS_C_FIXTURES_H */
