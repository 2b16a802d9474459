// SPDX-License-Identifier: Apache-2.0
#include "controller/owner_key.hpp"

#include "api/json_path.hpp"

namespace trainer::controller::detail {
namespace {

constexpr std::string_view kOwnerGroup = "trainer.kubeflow.org";
constexpr std::string_view kOwnerKind = "TrainJob";

std::string_view group_of(std::string_view api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

}  // namespace

std::string object_key(const boost::json::object& object) {
  const auto* metadata = trainer::detail::find_object(object, "metadata");
  if (metadata == nullptr) return "/";
  return trainer::detail::find_string(*metadata, "namespace").value_or("") + "/" +
         trainer::detail::find_string(*metadata, "name").value_or("");
}

std::optional<std::string> controller_owner_key(const boost::json::object& object) {
  const auto* metadata = trainer::detail::find_object(object, "metadata");
  if (metadata == nullptr) return std::nullopt;
  const auto* owners = trainer::detail::find_array(*metadata, "ownerReferences");
  if (owners == nullptr) return std::nullopt;
  for (const auto& value : *owners) {
    const auto* owner = value.if_object();
    if (owner == nullptr) continue;
    const auto* controller = owner->if_contains("controller");
    if (controller == nullptr || !controller->is_bool() || !controller->get_bool()) continue;
    // At most one ownerReference is the controller: it decides, whatever its kind.
    const auto api_version = trainer::detail::find_string(*owner, "apiVersion").value_or("");
    const auto kind = trainer::detail::find_string(*owner, "kind").value_or("");
    const auto name = trainer::detail::find_string(*owner, "name").value_or("");
    if (group_of(api_version) != kOwnerGroup || kind != kOwnerKind || name.empty()) {
      return std::nullopt;
    }
    return trainer::detail::find_string(*metadata, "namespace").value_or("") + "/" + name;
  }
  return std::nullopt;
}

std::pair<std::string_view, std::string_view> split_key(std::string_view key) {
  const auto slash = key.find('/');
  if (slash == std::string_view::npos) return {std::string_view(), key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

}  // namespace trainer::controller::detail
