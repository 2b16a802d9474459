// SPDX-License-Identifier: Apache-2.0
//
// A pod attempt's volumes on the host, below the run folder: emptyDir and ConfigMap/Secret
// volumes in `pods/<pod>/volumes/<name>`, claims in `claims/<claim>`, and the bind mounts the
// pod's init makes (docs/local.md, "Path safety"). Every folder and file is created relative to
// a folder descriptor without following symbolic links.
#pragma once

#include "local/plan.hpp"

#include <boost/json/array.hpp>

#include <functional>
#include <map>
#include <string>

namespace trainer::local::detail {

/// Where a pod attempt lives: the run folder (path and descriptor) and the attempt's folder
/// `pods/<name>` (descriptor).
struct PodFolder {
  std::string run_dir;
  int run_fd = -1;
  std::string name;
  int pod_fd = -1;
};

/// Issues the content of a projected token file for the pod attempt being prepared.
using TokenIssuer = std::function<Result<std::string>(const TokenFile&)>;

/// Creates the volumes of `pod` (files of ConfigMap/Secret volumes written, Secret files and
/// projected tokens from `issue_token` owner-only) and, when `with_mounts`, returns the bind
/// mounts for `trainer-pod init` (`{source, target, readOnly, file}`), `subPath` and
/// `subPathExpr` (expanded with `vars`) resolved below their volume.
[[nodiscard]] Result<boost::json::array> prepare_volumes(
    const PodPlan& pod, const PodFolder& folder, bool with_mounts,
    const std::map<std::string, std::string>& vars, const TokenIssuer& issue_token);

/// The mode a volume file gets on the host: as requested for ConfigMaps, the owner's bits only
/// for Secrets (0640 -> 0600, 0644 -> 0600, 0400 -> 0400).
[[nodiscard]] unsigned host_file_mode(const Volume& volume, unsigned requested);

}  // namespace trainer::local::detail
