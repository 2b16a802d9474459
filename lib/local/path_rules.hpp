// SPDX-License-Identifier: Apache-2.0
//
// The API server's rules for the pod fields that name host paths of a local run (volume item
// paths, subPath, file modes), with Kubernetes' field error texts
// (k8s.io/kubernetes pkg/apis/core/validation: validateLocalDescendingPath,
// ValidateLocalNonReservedPath, fileModeErrorMsg). The local executor checks every such field
// with these before it creates anything; docs/local.md, "Path safety".
#pragma once

#include "trainer/error.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::local::detail {

/// `validatePathNoBacksteps`: no `..` element ("must not contain '..'"), as for `hostPath.path`.
[[nodiscard]] std::vector<FieldError> validate_path_no_backsteps(const std::string& path,
                                                                 std::string_view value);

/// `validateLocalDescendingPath`: `value` is relative ("must be a relative path") and has no
/// `..` element ("must not contain '..'"). Errors at `path`.
[[nodiscard]] std::vector<FieldError> validate_local_descending_path(const std::string& path,
                                                                     std::string_view value);

/// `ValidateLocalNonReservedPath` (ConfigMap/Secret `items[].path`): the above, and "must not
/// start with '..'" for a first element like `..data` (the kubelet's reserved names).
[[nodiscard]] std::vector<FieldError> validate_local_non_reserved_path(const std::string& path,
                                                                       std::string_view value);

/// `fileModeErrorMsg`: a `mode`/`defaultMode` outside 0..0777 is Invalid at `path`.
[[nodiscard]] std::vector<FieldError> validate_file_mode(const std::string& path,
                                                         std::int64_t mode);

/// The local executor's own rule: a `mountPath` must be absolute (a relative one would be
/// created under the executor's working directory). Required when empty.
[[nodiscard]] std::vector<FieldError> validate_mount_path(const std::string& path,
                                                          std::string_view value);

}  // namespace trainer::local::detail
