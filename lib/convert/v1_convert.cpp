// SPDX-License-Identifier: Apache-2.0
#include "convert/v1_kinds.hpp"

#include "convert/v1_builtin.hpp"
#include "trainer/json_path.hpp"

namespace trainer::convert::detail {

const KindConverter* find_v1_kind(std::string_view kind) {
  for (const KindConverter* c : {&pytorch_converter(), &tensorflow_converter(), &mpi_converter(),
                                 &xgboost_converter(), &jax_converter(), &paddle_converter()}) {
    if (c->info.kind == kind) return c;
  }
  return nullptr;
}

Result<Conversion> convert_v1(const boost::json::object& job, const KindConverter& converter,
                              const Options& options) {
  const std::string name = trainer::object_name(job);
  std::string ns = trainer::object_namespace(job);
  if (ns.empty()) ns = options.namespace_.empty() ? std::string("default") : options.namespace_;
  Diagnostics diag(std::string(converter.info.kind) + " " + ns + "/" + name);
  auto v1 = read_v1_job(job, converter.info, ns, diag);
  if (!v1 || diag.failed()) return std::move(diag).finish({}, options.strict);
  Plan plan = converter.plan(*v1, diag);
  if (diag.failed()) return std::move(diag).finish({}, options.strict);
  warn_unknown_spec_fields(*v1, converter.spec_fields, diag);
  RunPolicyMapping rp = map_run_policy(*v1, diag);
  if (auto builtin = builtin_objects(*v1, plan, rp)) {
    return std::move(diag).finish(std::move(*builtin), options.strict);
  }
  auto objects = build_objects(*v1, plan, std::move(rp), diag);
  return std::move(diag).finish(std::move(objects), options.strict);
}

}  // namespace trainer::convert::detail
