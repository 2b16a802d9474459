// SPDX-License-Identifier: Apache-2.0
//
// List "upsert" helpers with upstream's identity rules (kubeflow/trainer pkg/apply): an item
// that matches an existing one replaces it in place, otherwise it is appended.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string_view>

namespace trainer::detail {

/// Env vars match by `name`.
void upsert_env(boost::json::array& env, const boost::json::object& var);
void upsert_env(boost::json::array& env, const boost::json::array& vars);
/// Container ports match by the same `containerPort` or the same `name`; an absent name equals
/// an absent name (upstream compares the two pointers' targets, nil == nil).
void upsert_port(boost::json::array& ports, const boost::json::object& port);
/// Volumes match by `name`.
void upsert_volume(boost::json::array& volumes, const boost::json::object& volume);
/// Volume mounts match by `mountPath` (not by name).
void upsert_volume_mount(boost::json::array& mounts, const boost::json::object& mount);

/// An EnvVar as upstream's apply configuration carries it: `name`, `value` (kept even when
/// empty), `valueFrom` with `fieldRef.fieldPath` (apiVersion dropped), `resourceFieldRef`
/// (containerName, resource, divisor), `configMapKeyRef`/`secretKeyRef` (name, key, optional).
/// Other sources are dropped, as upstream's conversion drops them.
[[nodiscard]] boost::json::object env_to_apply_form(const boost::json::object& var);

/// `{"name": name, "value": value}`.
[[nodiscard]] boost::json::object env_value(std::string_view name, std::string_view value);
/// `{"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}`.
[[nodiscard]] boost::json::object env_field_ref(std::string_view name, std::string_view path);

/// The job-completion-index annotation path JobSet's Indexed Jobs expose to pods.
inline constexpr const char* kJobCompletionIndexFieldPath =
    "metadata.annotations['batch.kubernetes.io/job-completion-index']";

}  // namespace trainer::detail
