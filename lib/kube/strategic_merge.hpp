// SPDX-License-Identifier: Apache-2.0
//
// Kubernetes strategic merge patch over JSON, driven by a table of merge keys for the schema
// runtime patches touch (JobSet v1alpha2 -> batch/v1 Job -> core/v1 Pod/Container). Patches come
// from typed objects, so they never carry `$patch`/`$retainKeys`/`$setElementOrder` directives;
// such keys are treated as ordinary fields.
#pragma once

#include "trainer/error.hpp"

#include <boost/json/value.hpp>

#include <string_view>

namespace trainer::detail {

/// The schema types the merge-key table knows; fields of other types merge as plain JSON (maps
/// recursively, lists replaced), which is also what strategic merge does for untagged fields.
enum class SchemaType {
  kUntyped,
  kJobSetSpec,
  kReplicatedJob,
  kJobTemplateSpec,
  kJobSpec,
  kPodTemplateSpec,
  kPodSpec,
  kContainer,
  kObjectMeta,
  // The `info` view of a plugin request (lib/plugin/info_json.cpp, docs/plugins.md).
  kPluginInfo,
  kPluginPodSet,
  kPluginTemplateSpec,
};

/// Applies `patch` onto `original` as a strategic merge patch of type `type`:
/// - maps merge key by key, a `null` patch value deletes the key;
/// - lists tagged `patchStrategy:"merge"` merge by their merge key (existing items are merged in
///   place, new ones appended in patch order), or as a set for lists of scalars (finalizers);
/// - every other list, and every scalar, is replaced.
/// Fails with `kInvalid` when an item of a merge-keyed list lacks its merge key.
[[nodiscard]] Result<boost::json::value> strategic_merge(const boost::json::value& original,
                                                         const boost::json::value& patch,
                                                         SchemaType type);

}  // namespace trainer::detail
