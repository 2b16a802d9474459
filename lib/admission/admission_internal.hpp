// SPDX-License-Identifier: Apache-2.0
//
// The parts of admission the render pipeline shares: the runtime and the runtime info admission
// found for each TrainJob (so that a render does neither twice) and the context whose lookup
// sees the existing objects among the inputs.
#pragma once

#include "trainer/admission.hpp"
#include "trainer/framework.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace trainer::detail {

/// What admission found for one TrainJob, so that a render neither looks its runtime up nor
/// builds its info again: the runtime its reference resolved to (pointers into the Admission's
/// objects; none found: both null) and the runtime info its plugin validation ran on (nullopt
/// when admission did not get that far).
///
/// When the render's one TrainJob is the last object admitted that reads its runtime, admission
/// writes the runtime's YAML for the snapshot (`runtime_yaml`) and then moves the runtime's
/// JobSet template into `info` instead of copying it: from then on that runtime's
/// `spec.template_.spec` is empty, and only `runtime_yaml` and `info` hold it.
struct AdmittedJob {
  RuntimeRefMatch runtime;
  std::optional<Info> info;
  std::optional<std::string> runtime_yaml;
};

/// `runtime` when it is one of `owned` (the Admission's objects), else null.
template <class Runtime>
[[nodiscard]] Runtime* owned_runtime(std::vector<Runtime>& owned, const Runtime* runtime) {
  for (auto& r : owned) {
    if (&r == runtime) return &r;
  }
  return nullptr;
}

/// `admit(documents, ctx, options)`; `jobs`, when not null, receives an AdmittedJob for each
/// TrainJob (parallel to `ObjectSet::train_jobs`).
[[nodiscard]] Result<Admission> admit(std::vector<boost::json::value> documents,
                                      const RenderContext& ctx, const AdmissionOptions& options,
                                      std::vector<AdmittedJob>* jobs);

/// `ctx` whose lookup finds `objects` first (an object without a namespace is in
/// `default_namespace`), then asks `ctx.lookup`. The objects must outlive the result.
[[nodiscard]] RenderContext with_existing_objects(const RenderContext& ctx,
                                                  std::vector<const boost::json::value*> objects,
                                                  std::string default_namespace);

/// `<namespace>/<name>` of a TrainJob, as admission's and render's messages name it.
[[nodiscard]] std::string job_key(const TrainJob& job);

}  // namespace trainer::detail
