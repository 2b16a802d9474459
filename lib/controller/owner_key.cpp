// SPDX-License-Identifier: Apache-2.0
#include "controller/owner_key.hpp"

#include "trainer/json_path.hpp"

namespace trainer::controller::detail {
namespace {

constexpr std::string_view kOwnerGroup = "trainer.kubeflow.org";
constexpr std::string_view kOptimizationPrefix = "OptimizationJob:";

std::string_view group_of(std::string_view api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

}  // namespace

std::string object_key(const boost::json::object& object) {
  const auto* metadata = trainer::find_object(object, "metadata");
  if (metadata == nullptr) return "/";
  return trainer::find_string(*metadata, "namespace").value_or("") + "/" +
         trainer::find_string(*metadata, "name").value_or("");
}

namespace {

// `<namespace>/<name>` of the trainer.kubeflow.org `owner_kind` that controls `object`.
std::optional<std::string> owner_of_kind(const boost::json::object& object,
                                         std::string_view owner_kind) {
  const auto* metadata = trainer::find_object(object, "metadata");
  if (metadata == nullptr) return std::nullopt;
  const auto* owners = trainer::find_array(*metadata, "ownerReferences");
  if (owners == nullptr) return std::nullopt;
  for (const auto& value : *owners) {
    const auto* owner = value.if_object();
    if (owner == nullptr) continue;
    const auto* controller = owner->if_contains("controller");
    if (controller == nullptr || !controller->is_bool() || !controller->get_bool()) continue;
    // At most one ownerReference is the controller: it decides, whatever its kind.
    const auto api_version = trainer::find_string(*owner, "apiVersion").value_or("");
    const auto kind = trainer::find_string(*owner, "kind").value_or("");
    const auto name = trainer::find_string(*owner, "name").value_or("");
    if (group_of(api_version) != kOwnerGroup || kind != owner_kind || name.empty()) {
      return std::nullopt;
    }
    return trainer::find_string(*metadata, "namespace").value_or("") + "/" + name;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> controller_owner_key(const boost::json::object& object) {
  return owner_of_kind(object, "TrainJob");
}

std::string optimization_key(std::string_view object_key) {
  return std::string(kOptimizationPrefix) + std::string(object_key);
}

std::optional<std::string> optimization_owner_key(const boost::json::object& object) {
  auto owner = owner_of_kind(object, "OptimizationJob");
  if (!owner) return std::nullopt;
  return optimization_key(*owner);
}

std::optional<std::string_view> optimization_object_key(std::string_view key) {
  if (key.rfind(kOptimizationPrefix, 0) != 0) return std::nullopt;
  return key.substr(kOptimizationPrefix.size());
}

std::pair<std::string_view, std::string_view> split_key(std::string_view key) {
  const auto slash = key.find('/');
  if (slash == std::string_view::npos) return {std::string_view(), key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

}  // namespace trainer::controller::detail
