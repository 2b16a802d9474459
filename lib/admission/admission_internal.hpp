// SPDX-License-Identifier: Apache-2.0
//
// The parts of admission the render pipeline shares: the runtime info admission computed for
// each TrainJob (so that a render does not build it twice) and the context whose lookup sees
// the existing objects among the inputs.
#pragma once

#include "trainer/admission.hpp"
#include "trainer/framework.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace trainer::detail {

/// `admit(documents, ctx, options)`; `infos`, when not null, receives for each admitted TrainJob
/// (parallel to `ObjectSet::train_jobs`) the runtime info its plugin validation ran on, or
/// nullopt when admission did not get that far.
[[nodiscard]] Result<Admission> admit(std::vector<boost::json::value> documents,
                                      const RenderContext& ctx, const AdmissionOptions& options,
                                      std::vector<std::optional<Info>>* infos);

/// `ctx` whose lookup finds `objects` first (an object without a namespace is in
/// `default_namespace`), then asks `ctx.lookup`. The objects must outlive the result.
[[nodiscard]] RenderContext with_existing_objects(const RenderContext& ctx,
                                                  std::vector<const boost::json::value*> objects,
                                                  std::string default_namespace);

}  // namespace trainer::detail
