// SPDX-License-Identifier: Apache-2.0
//
// Small pieces the ML-policy plugins (torch, plainml, jax, xgboost, flux, mpi) share that are
// too specific to their env and port contract for include/trainer/plugin_support.hpp, where
// everything general lives. Internal to trainer_core.
#pragma once

#include "trainer/error.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::plugins::detail {

/// `{"containerPort": 29500}`, no name or protocol, as upstream adds it.
[[nodiscard]] boost::json::object trainer_port();
/// The TrainJob's `spec.trainer.env` in apply form (upstream `apply.EnvVars`).
[[nodiscard]] boost::json::array env_in_apply_form(const std::vector<boost::json::object>& env);
/// The TrainJob's `spec.trainer.env` as given, e.g. as the value of a field error.
[[nodiscard]] boost::json::array env_as_json(const std::vector<boost::json::object>& env);
/// The `name` of an EnvVar ("" when absent).
[[nodiscard]] std::string_view env_name(const boost::json::object& var);
/// The reserved-env rule of the Torch (`PET_*`) and MPI (`OMPI_MCA_*`) plugins: one Invalid
/// `spec.trainer.env` error naming, sorted and once each as Go's `%v` of a sets.List, every name
/// of `env` that `reserved` holds for; nullopt when there is none.
[[nodiscard]] std::optional<FieldError> reserved_env_error(
    const std::vector<boost::json::object>& env, bool (*reserved)(std::string_view name));
/// True when the trainer command is exactly `["tune", "run"]`.
[[nodiscard]] bool is_torchtune_command(const std::optional<std::vector<std::string>>& command);

}  // namespace trainer::plugins::detail
