/* SPDX-License-Identifier: Apache-2.0 */
/* The TrainingRuntime `torch-rt` the C cluster and controller tests apply in their namespace. */
#ifndef TRAINER_C_CLUSTER_FIXTURES_H
#define TRAINER_C_CLUSTER_FIXTURES_H

#define RUNTIME_YAML                                                       \
  "apiVersion: trainer.kubeflow.org/v1alpha1\n"                            \
  "kind: TrainingRuntime\n"                                                \
  "metadata:\n"                                                            \
  "  name: torch-rt\n"                                                     \
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

#endif
