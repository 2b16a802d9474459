// SPDX-License-Identifier: Apache-2.0
//
// Names, owner references and container lookups of include/trainer/plugin_support.hpp.
#include "trainer/plugin_support.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <utility>

namespace trainer {

namespace json = boost::json;

std::string job_name(const TrainJob& job) {
  return job.metadata.name.value_or("");
}

std::string train_job_namespace(const TrainJob& job) {
  const auto& ns = job.metadata.namespace_;
  return ns && !ns->empty() ? *ns : std::string("default");
}

std::string rank0_host(const TrainJob& job) {
  const std::string name = job_name(job);
  return name + "-" + kNodeName + "-0-0." + name;
}

std::string effective_uid(const TrainJob& job, const PluginContext& ctx) {
  if (!ctx.inputs.train_job_uid.empty()) return ctx.inputs.train_job_uid;
  return job.metadata.uid.value_or("");
}

json::object train_job_owner_reference(const TrainJob& job, std::string_view uid) {
  return json::object{{"apiVersion", kApiVersion}, {"kind", kTrainJobKind},
                      {"name", job_name(job)},     {"uid", uid},
                      {"controller", true},        {"blockOwnerDeletion", true}};
}

json::object owned_object_metadata(std::string name, const TrainJob& job, std::string_view uid) {
  json::object meta;
  meta.reserve(3);
  meta["name"] = std::move(name);
  if (const auto& ns = job.metadata.namespace_; ns && !ns->empty()) meta["namespace"] = *ns;
  meta["ownerReferences"] = json::array{train_job_owner_reference(job, uid)};
  return meta;
}

namespace {

// Regular containers only: upstream's ancestor lookup does not search init containers.
template <class PodSetT>
auto* regular_container(PodSetT* ps, std::string_view name) {
  using Ptr = decltype(&ps->containers.front());
  if (ps == nullptr) return static_cast<Ptr>(nullptr);
  auto it = std::find_if(ps->containers.begin(), ps->containers.end(),
                         [&](const Container& c) { return c.name == name; });
  return it == ps->containers.end() ? static_cast<Ptr>(nullptr) : &*it;
}

}  // namespace

Container* find_container_by_ancestor(Info& info, std::string_view ancestor,
                                      std::string_view container) {
  return regular_container(info.find_pod_set_by_ancestor(ancestor), container);
}

const Container* find_container_by_ancestor(const Info& info, std::string_view ancestor,
                                            std::string_view container) {
  return regular_container(info.find_pod_set_by_ancestor(ancestor), container);
}

Container* find_container_by_pod_set_name(Info& info, std::string_view pod_set,
                                          std::string_view container) {
  PodSet* ps = info.find_pod_set_by_name(pod_set);
  return ps != nullptr ? ps->find_container(container) : nullptr;
}

const Container* find_container_by_pod_set_name(const Info& info, std::string_view pod_set,
                                                std::string_view container) {
  const PodSet* ps = info.find_pod_set_by_name(pod_set);
  return ps != nullptr ? ps->find_container(container) : nullptr;
}

}  // namespace trainer
