// SPDX-License-Identifier: Apache-2.0
#include "common/trainer_env.hpp"

#include "trainer/plugin_support.hpp"

#include <set>
#include <string>

namespace trainer::plugins::detail {

namespace json = boost::json;

json::object trainer_port() {
  return json::object{{"containerPort", kContainerTrainerPort}};
}

json::array env_in_apply_form(const std::vector<json::object>& env) {
  json::array out;
  out.reserve(env.size());
  for (const auto& var : env) out.push_back(env_to_apply_form(var));
  return out;
}

json::array env_as_json(const std::vector<json::object>& env) {
  json::array out;
  out.reserve(env.size());
  for (const auto& var : env) out.push_back(var);
  return out;
}

std::string_view env_name(const json::object& var) {
  const auto* name = var.if_contains("name");
  if (name == nullptr || !name->is_string()) return {};
  return name->get_string();
}

std::optional<FieldError> reserved_env_error(const std::vector<json::object>& env,
                                             bool (*reserved)(std::string_view name)) {
  std::set<std::string_view> found;
  for (const auto& var : env) {
    if (reserved(env_name(var))) found.insert(env_name(var));
  }
  if (found.empty()) return std::nullopt;
  std::string names;
  for (const auto n : found) {
    if (!names.empty()) names += ' ';
    names += n;
  }
  return field_invalid("spec.trainer.env", env_as_json(env),
                       "must not have reserved envs, invalid envs configured: [" + names + "]");
}

bool is_torchtune_command(const std::optional<std::vector<std::string>>& command) {
  return command && command->size() == 2 && (*command)[0] == "tune" && (*command)[1] == "run";
}

}  // namespace trainer::plugins::detail
