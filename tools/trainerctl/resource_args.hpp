// SPDX-License-Identifier: Apache-2.0
// The objects a cluster command names, read from its arguments as kubectl's resource builder
// reads them (one reading for get, describe, delete, wait and logs):
//   TYPE                  every object of TYPE (narrowed by -l)
//   TYPE NAME...          those objects
//   TYPE1,TYPE2 [NAME...] each type, each name (`get trainjobs,jobsets`)
//   TYPE/NAME...          those objects, of any types
// TYPE is any name discovery knows (`trainjob`, `trainjobs`, `TrainJob`,
// `trainjobs.trainer.kubeflow.org`, `jobsets`, `pods`, a short name), resolved by `resolve`.
#pragma once

#include "trainer/error.hpp"
#include "trainer/kube.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace trainerctl {

/// One TYPE with one NAME, or with none (every object of the type).
struct ResourceTarget {
  std::string type;
  std::string name;  ///< empty: every object (of the selector)
};

/// Reads `args` (the positional arguments) for the command `verb`. `selector`: -l or --all was
/// given, which names may not accompany. Errors are kubectl's (`arguments in resource/name
/// form must have a single resource and name`, ...), code kInvalidArgument; no arguments give no
/// targets (each command says what it needs).
[[nodiscard]] trainer::Result<std::vector<ResourceTarget>> parse_resource_args(
    const std::vector<std::string>& args, std::string_view verb, bool selector = false);

/// Whether the arguments name exactly one object (kubectl's "single item implied": -o json and
/// jsonpath print the object itself, not a List).
[[nodiscard]] bool names_one_object(const std::vector<ResourceTarget>& targets);

/// The discovered resource of each target's TYPE, in order (discovery is fetched once).
[[nodiscard]] trainer::Result<std::vector<trainer::kube::Resource>> resolve(
    trainer::kube::Client& client, const std::vector<ResourceTarget>& targets);

/// Whether `resource` is trainer.kubeflow.org's TrainJob.
[[nodiscard]] bool is_trainjob(const trainer::kube::Resource& resource);

}  // namespace trainerctl
