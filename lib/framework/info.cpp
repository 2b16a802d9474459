// SPDX-License-Identifier: Apache-2.0
//
// Lookup helpers of the data plugins share (upstream runtime.Info / PodSet methods).
#include "trainer/framework.hpp"

#include <algorithm>
#include <utility>

namespace trainer {
namespace {

template <class Sets>
auto find_by_ancestor(Sets& sets, std::string_view ancestor) -> decltype(sets.data()) {
  auto it = std::find_if(sets.begin(), sets.end(),
                         [&](const auto& ps) { return ps.ancestor && *ps.ancestor == ancestor; });
  return it == sets.end() ? nullptr : &*it;
}

template <class Sets>
auto find_by_name(Sets& sets, std::string_view name) -> decltype(sets.data()) {
  auto it = std::find_if(sets.begin(), sets.end(), [&](const auto& ps) { return ps.name == name; });
  return it == sets.end() ? nullptr : &*it;
}

}  // namespace

Container* PodSet::find_container(std::string_view container_name) {
  return const_cast<Container*>(std::as_const(*this).find_container(container_name));
}

const Container* PodSet::find_container(std::string_view container_name) const {
  // Regular containers first, then init containers (upstream FindContainerByPodSetName).
  if (const auto* c = find_by_name(containers, container_name)) return c;
  return find_by_name(init_containers, container_name);
}

PodSet* Info::find_pod_set_by_ancestor(std::string_view ancestor) {
  return find_by_ancestor(template_spec.pod_sets, ancestor);
}

const PodSet* Info::find_pod_set_by_ancestor(std::string_view ancestor) const {
  return find_by_ancestor(template_spec.pod_sets, ancestor);
}

PodSet* Info::find_pod_set_by_name(std::string_view name) {
  return find_by_name(template_spec.pod_sets, name);
}

const PodSet* Info::find_pod_set_by_name(std::string_view name) const {
  return find_by_name(template_spec.pod_sets, name);
}

std::optional<boost::json::value> RenderContext::find(std::string_view api_version,
                                                      std::string_view kind, std::string_view ns,
                                                      std::string_view name) const {
  if (!lookup) return std::nullopt;
  return lookup(api_version, kind, ns, name);
}

}  // namespace trainer
