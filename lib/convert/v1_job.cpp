// SPDX-License-Identifier: Apache-2.0
#include "convert/v1_job.hpp"

#include "api/ascii.hpp"
#include "trainer/json_path.hpp"
#include "trainer/names.hpp"
#include "trainer/validation.hpp"

#include <algorithm>
#include <cctype>

namespace trainer::convert::detail {
namespace json = boost::json;
using trainer::find_array;
using trainer::find_int;
using trainer::find_object;
using trainer::find_string;

std::string pod_address(std::string_view job, std::string_view rjob, std::int64_t job_index,
                        std::int64_t index) {
  return std::string(job) + "-" + std::string(rjob) + "-" + std::to_string(job_index) + "-" +
         std::to_string(index) + "." + std::string(job);
}

std::string pod_address(std::string_view job, std::string_view rjob, std::int64_t index) {
  return pod_address(job, rjob, 0, index);
}

json::object env_var(std::string_view name, std::string value) {
  return json::object{{"name", name}, {"value", std::move(value)}};
}

json::object env_field(std::string_view name, std::string_view field_path) {
  return json::object{
      {"name", name},
      {"valueFrom", json::object{{"fieldRef", json::object{{"fieldPath", field_path}}}}}};
}

Group make_group(std::string name, const Role* role, std::int64_t count, bool trainer_ancestor,
                 json::array env) {
  Group g;
  g.name = std::move(name);
  g.role = role;
  g.count = count;
  g.trainer_ancestor = trainer_ancestor;
  g.env = std::move(env);
  return g;
}

bool same_template(const Role& a, const Role& b) {
  return a.pod_template == b.pod_template;
}

const json::object* raw_replica_spec(const V1Job& job, const Role& role) {
  const auto* specs = find_object(job.spec, job.info->specs_field);
  const auto* v = specs != nullptr ? specs->if_contains(role.key) : nullptr;
  return v != nullptr ? v->if_object() : nullptr;
}

const Role* V1Job::role(std::string_view type) const {
  for (const auto& r : roles) {
    if (r.type == type) return &r;
  }
  return nullptr;
}

std::int64_t V1Job::total_replicas() const {
  std::int64_t n = 0;
  for (const auto& r : roles) n += r.replicas;
  return n;
}

std::optional<std::int64_t> read_count(const json::value& value, const std::string& path,
                                       std::int64_t min, Diagnostics& diag) {
  const std::string limit = "must be no more than " + std::to_string(kMaxPodsPerTrainJob);
  if (value.is_uint64()) {  // above INT64_MAX: Boost.JSON keeps it unsigned
    diag.refuse(field_invalid(path, value, limit));
    return std::nullopt;
  }
  if (!value.is_int64()) {
    diag.refuse(field_type_invalid(path, value, "must be an integer"));
    return std::nullopt;
  }
  const std::int64_t n = value.get_int64();
  if (n < min) {
    diag.refuse(
        field_invalid(path, value, "must be greater than or equal to " + std::to_string(min)));
    return std::nullopt;
  }
  if (n > kMaxPodsPerTrainJob) {
    diag.refuse(field_invalid(path, value, limit));
    return std::nullopt;
  }
  return n;
}

namespace {

// The default container: the one named like the kind's, else container 0 (reference 1.4).
json::object* default_container(json::object& pod_template, std::string_view name) {
  auto* spec = find_object(pod_template, "spec");
  auto* containers = spec != nullptr ? find_array(*spec, "containers") : nullptr;
  if (containers == nullptr || containers->empty()) return nullptr;
  for (auto& c : *containers) {
    if (c.is_object() && find_string(c.get_object(), "name") == std::string(name)) {
      return &c.get_object();
    }
  }
  return containers->front().is_object() ? &containers->front().get_object() : nullptr;
}

std::string canonical_type(std::string_view key, const KindInfo& info) {
  static const std::vector<std::string_view> kTfTypes = {"Chief", "Master", "PS", "Worker",
                                                         "Evaluator"};
  if (info.kind == "MPIJob") return std::string(key);  // v1 does not rename MPI keys
  const auto& known = info.types.empty() ? kTfTypes : info.types;
  for (auto t : known) {
    if (ascii::to_lower(t) == ascii::to_lower(key)) return std::string(t);
  }
  return std::string(key);
}

void check_containers(const json::object& pod_template, const std::string& path,
                      const KindInfo& info, Diagnostics& diag) {
  const auto* spec = find_object(pod_template, "spec");
  const auto* containers = spec != nullptr ? find_array(*spec, "containers") : nullptr;
  const std::string cpath = path + ".template.spec.containers";
  if (containers == nullptr || containers->empty()) {
    diag.refuse(field_required(cpath, "must specify at least one container"));
    return;
  }
  bool has_default = false;
  for (std::size_t i = 0; i < containers->size(); ++i) {
    const auto* c = (*containers)[i].if_object();
    const std::string item = cpath + "[" + std::to_string(i) + "]";
    if (c == nullptr) {
      diag.refuse(field_type_invalid(item, (*containers)[i], "must be an object"));
      continue;
    }
    if (find_string(*c, "image").value_or("").empty()) {
      diag.refuse(field_required(item + ".image", "must be required"));
    }
    const auto name = find_string(*c, "name").value_or("");
    if (name.empty() && !info.needs_default_container) {
      diag.refuse(field_required(item + ".name", "must be required"));
    }
    has_default = has_default || name == info.container;
  }
  if (info.needs_default_container && !has_default) {
    diag.refuse(field_required(
        cpath, "There is no container named " + std::string(info.container) + " in " + path));
  }
}

}  // namespace

std::int64_t V1Job::port(const Role& role) const {
  const auto* pod_spec = find_object(role.pod_template, "spec");
  const auto* containers = pod_spec != nullptr ? find_array(*pod_spec, "containers") : nullptr;
  if (containers == nullptr) return info->port;
  // The default-named container (the webhook required one, except for MPI, which has no port).
  for (const auto& value : *containers) {
    const auto* c = value.if_object();
    if (c == nullptr || find_string(*c, "name") != std::string(info->container)) continue;
    if (const auto* ports = find_array(*c, "ports")) {
      for (const auto& p : *ports) {
        if (p.is_object() && find_string(p.get_object(), "name") == std::string(info->port_name)) {
          if (auto n = find_int(p.get_object(), "containerPort")) return *n;
        }
      }
    }
  }
  return info->port;
}

std::optional<V1Job> read_v1_job(const json::object& job, const KindInfo& info,
                                 std::string default_ns, Diagnostics& diag) {
  V1Job out;
  out.info = &info;
  if (const auto* meta = find_object(job, "metadata")) out.metadata = *meta;
  out.name = find_string(out.metadata, "name").value_or("");
  out.ns = find_string(out.metadata, "namespace")
               .value_or(default_ns.empty() ? std::string("default") : default_ns);
  if (out.name.empty()) {
    diag.refuse(field_required("metadata.name", "name or generateName is required"));
  } else if (auto msgs = trainer::is_dns1035_label(out.name); !msgs.empty()) {
    diag.refuse(field_invalid("metadata.name", json::value(out.name), msgs.front()));
  }
  const auto* spec = find_object(job, "spec");
  if (spec == nullptr) {
    diag.refuse(field_required("spec", "must be required"));
    return std::nullopt;
  }
  out.spec = *spec;
  const std::string specs_path = "spec." + std::string(info.specs_field);
  const auto* specs = find_object(*spec, info.specs_field);
  if (specs == nullptr || specs->empty()) {
    diag.refuse(field_required(specs_path, "must be required"));
    return std::nullopt;
  }
  for (const auto& [key, value] : *specs) {
    Role role;
    role.type = canonical_type(key, info);
    role.key = std::string(key);
    role.path = specs_path + "[" + std::string(key) + "]";
    if (!info.types.empty() &&
        std::find(info.types.begin(), info.types.end(), role.type) == info.types.end()) {
      std::vector<std::string> valid(info.types.begin(), info.types.end());
      diag.refuse(field_not_supported(role.path, json::value(key), valid));
      continue;
    }
    if (out.role(role.type) != nullptr) {
      diag.refuse(field_duplicate(role.path, json::value(key)));
      continue;
    }
    const auto* rs = value.if_object();
    if (rs == nullptr) {
      diag.refuse(field_type_invalid(role.path, value, "must be an object"));
      continue;
    }
    const bool worker_zero = role.type == "Worker" && info.default_replicas_worker == 0;
    role.replicas = worker_zero ? 0 : 1;
    if (const auto* r = rs->if_contains("replicas"); r != nullptr && !r->is_null()) {
      role.replicas = read_count(*r, role.path + ".replicas", 0, diag).value_or(0);
    }
    role.restart_policy = find_string(*rs, "restartPolicy").value_or("");
    if (role.restart_policy.empty()) role.restart_policy = std::string(info.restart);
    if (role.restart_policy != "Always" && role.restart_policy != "OnFailure" &&
        role.restart_policy != "Never" && role.restart_policy != "ExitCode") {
      diag.refuse(field_not_supported(role.path + ".restartPolicy",
                                      json::value(role.restart_policy),
                                      {"Always", "OnFailure", "Never", "ExitCode"}));
    }
    if (const auto* t = find_object(*rs, "template")) role.pod_template = *t;
    if (const auto* p = find_object(role.pod_template, "spec");
        p != nullptr && p->contains("containers") && !p->at("containers").is_array()) {
      diag.refuse(field_type_invalid(role.path + ".template.spec.containers", p->at("containers"),
                                     "must be an array"));
      continue;
    }
    check_containers(role.pod_template, role.path, info, diag);
    if (info.add_port) {
      if (auto* c = default_container(role.pod_template, info.container)) {
        auto& ports = trainer::ensure_array(*c, "ports");
        const bool has = std::any_of(ports.begin(), ports.end(), [&](const json::value& p) {
          return p.is_object() &&
                 find_string(p.get_object(), "name") == std::string(info.port_name);
        });
        if (!has) {
          ports.push_back(json::object{{"name", info.port_name}, {"containerPort", info.port}});
        }
      }
    }
    out.roles.push_back(std::move(role));
  }
  // Each term is at most kMaxPodsPerTrainJob and there are fewer roles than bytes of input,
  // so the sum cannot overflow.
  if (const std::int64_t total = out.total_replicas(); total > kMaxPodsPerTrainJob) {
    diag.refuse(field_invalid(specs_path, json::value(total),
                              "the replicas add up to " + std::to_string(total) +
                                  " pods; a TrainJob may have no more than " +
                                  std::to_string(kMaxPodsPerTrainJob)));
  }
  // The kind's type order (Master before Worker, ...), then the others as the map sorts them.
  auto rank = [&](const Role& r) {
    auto it = std::find(info.types.begin(), info.types.end(), r.type);
    return static_cast<std::size_t>(it - info.types.begin());
  };
  std::stable_sort(out.roles.begin(), out.roles.end(),
                   [&](const Role& a, const Role& b) { return rank(a) < rank(b); });
  return out;
}

}  // namespace trainer::convert::detail
