// SPDX-License-Identifier: Apache-2.0
//
// Kubernetes PodRequests and the resources merge of `resourcesPerNode`.
#include "trainer/plugin_support.hpp"

#include "trainer/json_path.hpp"

#include "kube/quantity_json.hpp"

#include <boost/json/serialize.hpp>

#include <string_view>
#include <utility>

namespace trainer {
namespace {

namespace json = boost::json;
using trainer::find_array;
using trainer::find_object;
using trainer::find_string;
using ResourceList = std::map<std::string, Quantity>;

// `resources.requests` of a container (or `overhead` / pod `resources.requests`).
Result<ResourceList> read_list(const json::object* list) {
  ResourceList out;
  if (list == nullptr) return out;
  for (const auto& [name, value] : *list) {
    auto q = trainer::detail::quantity_from_json(value, name);
    if (!q) return tl::unexpected(q.error());
    out[std::string(name)] = std::move(*q);
  }
  return out;
}

Result<ResourceList> container_requests(const json::value& container) {
  if (!container.is_object()) return ResourceList{};
  return read_list(find_object(container.get_object(), {"resources", "requests"}));
}

void add(ResourceList& to, const ResourceList& from) {
  for (const auto& [name, q] : from) {
    auto it = to.find(name);
    if (it == to.end()) {
      to.emplace(name, q);
    } else {
      it->second += q;
    }
  }
}

void max_into(ResourceList& to, const ResourceList& from) {
  for (const auto& [name, q] : from) {
    auto it = to.find(name);
    if (it == to.end()) {
      to.emplace(name, q);
    } else if (q > it->second) {
      it->second = q;
    }
  }
}

bool is_pod_level_resource(std::string_view name) {
  return name == "cpu" || name == "memory" || name.rfind("hugepages-", 0) == 0;
}

}  // namespace

Result<ResourceList> pod_requests(const json::object& pod_spec) {
  ResourceList reqs;
  if (const auto* containers = find_array(pod_spec, "containers")) {
    for (const auto& c : *containers) {
      auto r = container_requests(c);
      if (!r) return tl::unexpected(r.error());
      add(reqs, *r);
    }
  }
  ResourceList restartable;  // sidecars started so far
  ResourceList init_max;
  if (const auto* inits = find_array(pod_spec, "initContainers")) {
    for (const auto& c : *inits) {
      auto r = container_requests(c);
      if (!r) return tl::unexpected(r.error());
      const bool sidecar = c.is_object() && find_string(c.get_object(), "restartPolicy") ==
                                                std::optional<std::string>("Always");
      ResourceList effective;
      if (sidecar) {
        add(reqs, *r);
        add(restartable, *r);
        effective = restartable;
      } else {
        effective = *r;
        add(effective, restartable);
      }
      max_into(init_max, effective);
    }
  }
  max_into(reqs, init_max);
  auto pod_level = read_list(find_object(pod_spec, {"resources", "requests"}));
  if (!pod_level) return tl::unexpected(pod_level.error());
  for (const auto& [name, q] : *pod_level) {
    if (is_pod_level_resource(name)) reqs[name] = q;
  }
  auto overhead = read_list(find_object(pod_spec, {"overhead"}));
  if (!overhead) return tl::unexpected(overhead.error());
  add(reqs, *overhead);
  return reqs;
}

json::object merge_resource_requirements(const json::object& base, const json::object& override_) {
  json::object out;
  for (const char* key : {"limits", "requests"}) {
    const auto* b = find_object(base, {key});
    const auto* o = find_object(override_, {key});
    if (b == nullptr && o == nullptr) continue;
    json::object merged = b != nullptr ? *b : json::object();
    if (o != nullptr) {
      for (const auto& [name, value] : *o) merged[name] = value;
    }
    out[key] = std::move(merged);
  }
  const auto* bc = find_array(base, "claims");
  const auto* oc = find_array(override_, "claims");
  if (bc != nullptr || oc != nullptr) {
    json::array claims = bc != nullptr ? *bc : json::array();
    if (oc != nullptr) {
      for (const auto& claim : *oc) {
        const auto* name = claim.is_object() ? claim.get_object().if_contains("name") : nullptr;
        json::value* same = nullptr;
        for (auto& have : claims) {
          const auto* have_name =
              have.is_object() ? have.get_object().if_contains("name") : nullptr;
          if (name != nullptr && have_name != nullptr && *name == *have_name) {
            same = &have;
            break;
          }
        }
        if (same != nullptr && same->is_object() && claim.is_object()) {
          for (const auto& [k, v] : claim.get_object()) same->get_object()[k] = v;
        } else {
          claims.push_back(claim);
        }
      }
    }
    out["claims"] = std::move(claims);
  }
  return out;
}

}  // namespace trainer
