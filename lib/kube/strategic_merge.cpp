// SPDX-License-Identifier: Apache-2.0
#include "kube/strategic_merge.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <string>

namespace trainer::detail {
namespace {

enum class ListStrategy { kReplace, kMergeByKey, kMergeSet };

// How one field of a schema type merges: the type of its value (or of its list items) and, for
// lists, the patch strategy from the Go struct tags.
struct FieldRule {
  std::string_view field;
  SchemaType type;
  ListStrategy strategy;
  std::string_view merge_key;
};

struct TypeRules {
  SchemaType type;
  std::initializer_list<FieldRule> fields;
};

// The merge-key table, from the `patchStrategy`/`patchMergeKey` tags of jobset v1alpha2,
// batch/v1 and core/v1. Fields not listed merge as untyped JSON.
const TypeRules kRules[] = {
    {SchemaType::kJobSetSpec,
     {{"replicatedJobs", SchemaType::kReplicatedJob, ListStrategy::kMergeByKey, "name"}}},
    {SchemaType::kReplicatedJob,
     {{"template", SchemaType::kJobTemplateSpec, ListStrategy::kReplace, {}}}},
    {SchemaType::kJobTemplateSpec,
     {{"metadata", SchemaType::kObjectMeta, ListStrategy::kReplace, {}},
      {"spec", SchemaType::kJobSpec, ListStrategy::kReplace, {}}}},
    {SchemaType::kJobSpec,
     {{"template", SchemaType::kPodTemplateSpec, ListStrategy::kReplace, {}}}},
    {SchemaType::kPodTemplateSpec,
     {{"metadata", SchemaType::kObjectMeta, ListStrategy::kReplace, {}},
      {"spec", SchemaType::kPodSpec, ListStrategy::kReplace, {}}}},
    {SchemaType::kPodSpec,
     {{"volumes", SchemaType::kUntyped, ListStrategy::kMergeByKey, "name"},
      {"initContainers", SchemaType::kContainer, ListStrategy::kMergeByKey, "name"},
      {"containers", SchemaType::kContainer, ListStrategy::kMergeByKey, "name"},
      {"ephemeralContainers", SchemaType::kContainer, ListStrategy::kMergeByKey, "name"},
      {"imagePullSecrets", SchemaType::kUntyped, ListStrategy::kMergeByKey, "name"},
      {"hostAliases", SchemaType::kUntyped, ListStrategy::kMergeByKey, "ip"},
      {"schedulingGates", SchemaType::kUntyped, ListStrategy::kMergeByKey, "name"},
      {"resourceClaims", SchemaType::kUntyped, ListStrategy::kMergeByKey, "name"},
      {"topologySpreadConstraints", SchemaType::kUntyped, ListStrategy::kMergeByKey,
       "topologyKey"}}},
    {SchemaType::kContainer,
     {{"env", SchemaType::kUntyped, ListStrategy::kMergeByKey, "name"},
      {"volumeMounts", SchemaType::kUntyped, ListStrategy::kMergeByKey, "mountPath"},
      {"volumeDevices", SchemaType::kUntyped, ListStrategy::kMergeByKey, "devicePath"},
      {"ports", SchemaType::kUntyped, ListStrategy::kMergeByKey, "containerPort"}}},
    {SchemaType::kObjectMeta,
     {{"finalizers", SchemaType::kUntyped, ListStrategy::kMergeSet, {}},
      {"ownerReferences", SchemaType::kUntyped, ListStrategy::kMergeByKey, "uid"}}},
    // The plugin request's `info` view, with upstream's identity rules for its lists.
    {SchemaType::kPluginInfo,
     {{"podSets", SchemaType::kPluginPodSet, ListStrategy::kMergeByKey, "name"},
      {"templateSpec", SchemaType::kPluginTemplateSpec, ListStrategy::kReplace, {}}}},
    {SchemaType::kPluginPodSet,
     {{"initContainers", SchemaType::kContainer, ListStrategy::kMergeByKey, "name"},
      {"containers", SchemaType::kContainer, ListStrategy::kMergeByKey, "name"},
      {"volumes", SchemaType::kUntyped, ListStrategy::kMergeByKey, "name"}}},
    {SchemaType::kPluginTemplateSpec,
     {{"jobSetSpec", SchemaType::kJobSetSpec, ListStrategy::kReplace, {}}}},
};

constexpr FieldRule kUntypedField{{}, SchemaType::kUntyped, ListStrategy::kReplace, {}};

const FieldRule& rule_for(SchemaType type, std::string_view field) {
  for (const auto& rules : kRules) {
    if (rules.type != type) continue;
    for (const auto& rule : rules.fields) {
      if (rule.field == field) return rule;
    }
  }
  return kUntypedField;
}

Result<boost::json::value> merge_value(const boost::json::value& original,
                                       const boost::json::value& patch, SchemaType type);

Result<boost::json::array> merge_by_key(const boost::json::array& original,
                                        const boost::json::array& patch, const FieldRule& rule) {
  boost::json::array merged = original;
  for (const auto& item : patch) {
    const auto* patch_obj = item.if_object();
    const auto* key = patch_obj != nullptr ? patch_obj->if_contains(rule.merge_key) : nullptr;
    if (key == nullptr) {
      return fail(ErrorCode::kInvalid, "strategic merge: item " + boost::json::serialize(item) +
                                           " of list \"" + std::string(rule.field) +
                                           "\" does not contain its merge key \"" +
                                           std::string(rule.merge_key) + "\"");
    }
    auto existing = std::find_if(merged.begin(), merged.end(), [&](const boost::json::value& v) {
      const auto* obj = v.if_object();
      const auto* k = obj != nullptr ? obj->if_contains(rule.merge_key) : nullptr;
      return k != nullptr && *k == *key;
    });
    if (existing == merged.end()) {
      merged.push_back(item);
      continue;
    }
    auto m = merge_value(*existing, item, rule.type);
    if (!m) return tl::unexpected(m.error());
    *existing = std::move(*m);
  }
  return merged;
}

boost::json::array merge_set(const boost::json::array& original, const boost::json::array& patch) {
  boost::json::array merged = original;
  for (const auto& item : patch) {
    if (std::find(merged.begin(), merged.end(), item) == merged.end()) merged.push_back(item);
  }
  return merged;
}

Result<boost::json::value> merge_value(const boost::json::value& original,
                                       const boost::json::value& patch, SchemaType type) {
  if (!patch.is_object() || !original.is_object()) return patch;
  boost::json::object merged = original.get_object();
  for (const auto& [key, patch_value] : patch.get_object()) {
    if (patch_value.is_null()) {
      merged.erase(key);
      continue;
    }
    auto* current = merged.if_contains(key);
    if (current == nullptr) {
      merged[key] = patch_value;
      continue;
    }
    const auto& rule = rule_for(type, key);
    if (patch_value.is_array() && current->is_array()) {
      if (rule.strategy == ListStrategy::kMergeByKey) {
        auto m = merge_by_key(current->get_array(), patch_value.get_array(), rule);
        if (!m) return tl::unexpected(m.error());
        *current = std::move(*m);
      } else if (rule.strategy == ListStrategy::kMergeSet) {
        *current = merge_set(current->get_array(), patch_value.get_array());
      } else {
        *current = patch_value;
      }
      continue;
    }
    auto m = merge_value(*current, patch_value, rule.type);
    if (!m) return tl::unexpected(m.error());
    *current = std::move(*m);
  }
  return boost::json::value(std::move(merged));
}

}  // namespace

Result<boost::json::value> strategic_merge(const boost::json::value& original,
                                           const boost::json::value& patch, SchemaType type) {
  return merge_value(original, patch, type);
}

}  // namespace trainer::detail
