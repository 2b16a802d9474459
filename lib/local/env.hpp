// SPDX-License-Identifier: Apache-2.0
//
// A pod's environment as the kubelet builds it: `envFrom` sources first, then `env` in order
// (later entries win), `$(VAR)` references expanded against what is defined so far, values from
// the rendered ConfigMaps/Secrets and the downward API fields that have a local meaning.
#pragma once

#include "local/plan.hpp"

#include "trainer/error.hpp"

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::local::detail {

/// What the downward API sees of one pod attempt.
struct PodIdentity {
  std::string name;
  std::string uid;
  std::string node_name;  ///< the host's name
};

using EnvList = std::vector<std::pair<std::string, std::string>>;

/// The container env of `pod`, then the `host` variables the container does not set.
/// Errors (`kNotFound`, `kUnsupported`, `kInvalid`) name the field path of the entry.
[[nodiscard]] Result<EnvList> resolve_env(const Plan& plan, const PodPlan& pod,
                                          const PodIdentity& identity, const EnvList& host);

/// Kubernetes `$(VAR)` expansion: `$(NAME)` becomes the value when NAME is defined and stays
/// as written otherwise; `$$` is an escaped `$`.
[[nodiscard]] std::string expand(std::string_view text,
                                 const std::map<std::string, std::string>& vars);

/// Replaces every pod FQDN and hostname of `plan`, and every name of `others`, in `text` with
/// `replacement` (the host fallback, where pod names do not resolve).
[[nodiscard]] std::string rewrite_hostnames(std::string text, const Plan& plan,
                                            std::string_view replacement,
                                            const std::vector<std::string>& others = {});

}  // namespace trainer::local::detail
