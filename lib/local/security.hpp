// SPDX-License-Identifier: Apache-2.0
//
// The user a pod's container runs as: the pod's and the container's `securityContext`
// (`runAsUser`, `runAsGroup`, `runAsNonRoot`, `supplementalGroups`, `fsGroup`), resolved as the
// kubelet does (a container field wins over the pod's), against the executor's own identity,
// which is what the image's user is locally (docs/local.md, "Users").
#pragma once

#include "trainer/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace trainer::local::detail {

/// A value with the field path it was read from (for errors).
template <class T>
struct Field {
  T value{};
  std::string path;
};

/// The effective securityContext fields of one container that decide its user.
struct SecurityContext {
  std::optional<Field<std::int64_t>> run_as_user;
  std::optional<Field<std::int64_t>> run_as_group;
  std::optional<Field<bool>> run_as_non_root;
  /// The pod's `supplementalGroups` and `fsGroup` (the kubelet adds both to the process).
  std::vector<Field<std::int64_t>> supplemental_groups;
  /// The pod's `fsGroup`: the group that owns its writable volumes (as the kubelet sets it).
  std::optional<Field<std::int64_t>> fs_group;
  std::string container;  ///< the container's name, for messages
};

/// Reads `securityContext` of the pod spec (at `pod_path`) and of its container (at
/// `container_path`); malformed values (not an integer in [0, 2147483647], not a boolean) are
/// appended to `errors` with their field path, as the API server reports them.
[[nodiscard]] SecurityContext read_security_context(const boost::json::object& pod_spec,
                                                    const boost::json::object& container,
                                                    const std::string& pod_path,
                                                    const std::string& container_path,
                                                    std::vector<FieldError>& errors);

/// Who the container process becomes: uid, gid and supplementary groups.
struct PodUser {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
};

/// The executor's identity (effective uid, gid and supplementary groups).
struct Identity {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
};
[[nodiscard]] Identity current_identity();

/// The user `pod` (hostname, for messages) runs as when the executor is `self`: nothing (the
/// executor's own user, as the image's user is locally) when the context asks for nothing else.
/// Refused, with the field path: `runAsNonRoot` with a user that is (or defaults to) root, and,
/// when `self` is not root, any uid, gid or supplementary group `self` does not already have
/// (switching users needs root). As root: `runAsUser` without `runAsGroup` takes the user's
/// primary group from the host's user database (the image's), or 0 when the uid has no entry,
/// as container runtimes do; the supplementary groups are the user's groups there plus the
/// pod's `supplementalGroups` and `fsGroup`.
[[nodiscard]] Result<std::optional<PodUser>> resolve_pod_user(const SecurityContext& context,
                                                              const Identity& self,
                                                              const std::string& pod);

struct Plan;
/// `resolve_pod_user` for every container of the plan (once per replicated job), with every
/// refusal in one error.
[[nodiscard]] Result<void> check_pod_users(const Plan& plan, const Identity& self);

struct PodPlan;
/// Makes the volumes the executor created for pod attempt `pod_dir` usable by `user`: its
/// emptyDir and ConfigMap/Secret folders (private to the attempt) are given to the user
/// (owner uid and gid, without following links), so Secret files written owner-only on the host
/// stay readable by the pod. With `fsGroup`, as the kubelet's SetVolumeOwnership: those and the
/// run's claim folders get that group and owner/group read-write (read-only for ConfigMap/Secret
/// files), folders also execute and the set-group-ID bit.
/// hostPath volumes keep the host's ownership. Nothing to do without a user or fsGroup.
[[nodiscard]] Result<void> give_volumes(const PodPlan& pod, const std::string& run_dir,
                                        const std::string& pod_dir,
                                        const std::optional<PodUser>& user);

/// The pod spec's `user` entry for `trainer-pod init` (null: no change of user).
[[nodiscard]] boost::json::value pod_user_json(const std::optional<PodUser>& user);

}  // namespace trainer::local::detail
