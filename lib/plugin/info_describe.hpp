// SPDX-License-Identifier: Apache-2.0
//
// The JSON shape of the structs of the plugin Info view (docs/plugins.md) for the struct codec
// (lib/api/struct_codec.hpp). `Info` and `TemplateSpec` themselves are reshaped by the view
// (`podSets` is lifted out of `templateSpec`), so info_json.cpp maps those two by hand.
#pragma once

#include "api/codec_rules.hpp"
#include "trainer/framework.hpp"

#include <boost/describe/class.hpp>

// As in lib/api/model_describe.hpp: clang's -Wpedantic refuses Boost.Describe's empty
// `__VA_ARGS__` in C++17.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-zero-variadic-macro-arguments"
#endif

namespace trainer {

BOOST_DESCRIBE_STRUCT(Container, (), (name, image, command, env, ports, volume_mounts))
BOOST_DESCRIBE_STRUCT(PodSet, (),
                      (name, ancestor, count, init_containers, containers, volumes, endpoints,
                       single_pod_requests))
BOOST_DESCRIBE_STRUCT(RuntimePolicy, (), (ml_policy, pod_group_policy))
BOOST_DESCRIBE_STRUCT(SchedulerInfo, (), (pod_labels, pod_annotations))
BOOST_DESCRIBE_STRUCT(RuntimeIdentity, (), (kind, name, labels, annotations))

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

namespace detail {

// The view shows every member, empty or not, so that a plugin's patch finds each one; and a
// reply's misspelt member is an error rather than a dropped key.
template <>
inline constexpr bool kWritesEmptyFields<Container> = true;
template <>
inline constexpr bool kWritesEmptyFields<PodSet> = true;
template <>
inline constexpr bool kWritesEmptyFields<RuntimePolicy> = true;
template <>
inline constexpr bool kWritesEmptyFields<SchedulerInfo> = true;
template <>
inline constexpr bool kWritesEmptyFields<RuntimeIdentity> = true;
template <>
inline constexpr bool kUnknownFieldsAreErrors<Container> = true;
template <>
inline constexpr bool kUnknownFieldsAreErrors<PodSet> = true;
template <>
inline constexpr bool kUnknownFieldsAreErrors<RuntimePolicy> = true;
template <>
inline constexpr bool kUnknownFieldsAreErrors<SchedulerInfo> = true;
template <>
inline constexpr bool kUnknownFieldsAreErrors<RuntimeIdentity> = true;

}  // namespace detail
}  // namespace trainer
