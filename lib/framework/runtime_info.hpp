// SPDX-License-Identifier: Apache-2.0
//
// new_runtime_info on a JobSet template the caller gives up (render_documents, see
// lib/admission): moved into the Info instead of copied.
#pragma once

#include "trainer/error.hpp"
#include "trainer/framework.hpp"
#include "trainer/model.hpp"

#include <boost/json/object.hpp>

namespace trainer::detail {

/// `new_runtime_info(job, spec)` with `jobset_spec` in place of `spec.template_.spec`, which it
/// does not read.
[[nodiscard]] Result<Info> new_runtime_info(const TrainJob& job, const TrainingRuntimeSpec& spec,
                                            boost::json::object jobset_spec);

}  // namespace trainer::detail
