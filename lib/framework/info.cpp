// SPDX-License-Identifier: Apache-2.0
//
// Lookup helpers of the data plugins share (upstream runtime.Info / PodSet methods).
#include "trainer/framework.hpp"

#include <algorithm>
#include <limits>
#include <string>
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

PodEndpoints PodEndpoints::jobset(std::string job_name, std::string_view replicated_job,
                                  std::string subdomain, std::int64_t replicas,
                                  std::int64_t pods_per_replica) {
  PodEndpoints out;
  out.pattern_ = true;
  out.prefix_ = std::move(job_name);
  out.prefix_.append("-").append(replicated_job).append("-");
  out.suffix_ = "." + std::move(subdomain);
  out.replicas_ = static_cast<std::uint64_t>(std::max<std::int64_t>(replicas, 0));
  out.pods_per_replica_ = static_cast<std::uint64_t>(std::max<std::int64_t>(pods_per_replica, 0));
  return out;
}

std::size_t PodEndpoints::size() const noexcept {
  if (!pattern_) return names_.size();
  constexpr std::uint64_t kMax = std::numeric_limits<std::size_t>::max();
  if (pods_per_replica_ != 0 && replicas_ > kMax / pods_per_replica_) return kMax;
  return static_cast<std::size_t>(replicas_ * pods_per_replica_);
}

std::string PodEndpoints::operator[](std::size_t index) const {
  if (!pattern_) return names_[index];
  const std::uint64_t i = index;
  return prefix_ + std::to_string(i / pods_per_replica_) + "-" +
         std::to_string(i % pods_per_replica_) + suffix_;
}

std::vector<std::string> PodEndpoints::to_vector() const {
  if (!pattern_) return names_;
  std::vector<std::string> out;
  out.reserve(size());
  for (auto name : *this) out.push_back(std::move(name));
  return out;
}

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
