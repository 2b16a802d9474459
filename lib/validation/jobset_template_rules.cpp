// SPDX-License-Identifier: Apache-2.0
//
// The rules the runtime CRDs inherit from the embedded `jobset.x-k8s.io/v1alpha2` JobSetSpec
// (reference 1.9): the JobSet-level CEL rules, enums, limits and `Value is immutable` transition
// rules. The spec is raw JSON, so every access is type-checked first and a wrong type becomes a
// schema type error. The pod templates inside the replicated jobs are core/v1; of their rules,
// only the quantity fields are checked (validation/quantity_rules.hpp).
#include "validation/quantity_rules.hpp"
#include "validation/rules.hpp"

#include <algorithm>

namespace trainer::detail {
namespace {

constexpr const char* kValueImmutable = "Value is immutable";

const boost::json::value* find(const boost::json::object* o, std::string_view key) {
  return o != nullptr ? o->if_contains(key) : nullptr;
}

void required_fields(const boost::json::object& o, const FieldPath& path,
                     std::initializer_list<std::string_view> fields, Errors& errs) {
  for (const auto f : fields) {
    if (!o.contains(f)) errs.push_back(field_required(FieldPath::field(path, f).str(), ""));
  }
}

void enum_field(const boost::json::object& o, std::string_view key, const FieldPath& path,
                std::initializer_list<std::string_view> allowed, Errors& errs) {
  const auto* v = o.if_contains(key);
  if (v == nullptr) return;
  const FieldPath p = FieldPath::field(path, key);
  if (const auto* s = expect_string(errs, p, *v)) check_enum(errs, p, *s, allowed);
}

// `self == oldSelf` on a field present in both objects.
void immutable_field(const boost::json::object& spec, const boost::json::object* old,
                     std::string_view key, const FieldPath& path, Errors& errs) {
  const auto* now = spec.if_contains(key);
  const auto* before = find(old, key);
  if (now != nullptr && before != nullptr && *now != *before) {
    errs.push_back(cel_invalid(FieldPath::field(path, key).str(), std::nullopt, kValueImmutable));
  }
}

const boost::json::object* find_job(const boost::json::object* old_spec,
                                    const boost::json::value& name) {
  const auto* jobs = find(old_spec, "replicatedJobs");
  if (jobs == nullptr || !jobs->is_array()) return nullptr;
  for (const auto& j : jobs->get_array()) {
    const auto* o = j.if_object();
    if (o != nullptr) {
      const auto* n = o->if_contains("name");
      if (n != nullptr && *n == name) return o;
    }
  }
  return nullptr;
}

void depends_on_rules(const boost::json::object& job, const boost::json::object* old_job,
                      const FieldPath& job_path, Errors& errs) {
  const auto* v = job.if_contains("dependsOn");
  if (v == nullptr) return;
  const FieldPath path = FieldPath::field(job_path, "dependsOn");
  const auto* deps = expect_array(errs, path, *v);
  if (deps == nullptr) return;
  check_max_items(errs, path, deps->size(), 5);
  std::vector<std::optional<boost::json::value>> keys;
  for (const auto& d : *deps) {
    const auto* o = d.if_object();
    const auto* n = o != nullptr ? o->if_contains("name") : nullptr;
    keys.push_back(n != nullptr ? std::optional<boost::json::value>(*n) : std::nullopt);
  }
  check_unique_map_keys(errs, path, "name", keys);
  const auto* old_deps = find(old_job, "dependsOn");
  if (old_deps != nullptr && old_deps->is_array() &&
      !cel_equal_map_list(*deps, old_deps->get_array(), "name")) {
    errs.push_back(cel_invalid(path.str(), std::nullopt, kValueImmutable));
  }
  for (std::size_t i = 0; i < deps->size(); ++i) {
    const FieldPath item = FieldPath::index(path, i);
    const auto* d = expect_object(errs, item, (*deps)[i]);
    if (d == nullptr) continue;
    required_fields(*d, item, {"name", "status"}, errs);
    if (const auto* n = d->if_contains("name"))
      (void)expect_string(errs, FieldPath::field(item, "name"), *n);
    enum_field(*d, "status", item, {"Ready", "Complete"}, errs);
  }
}

void replicated_job_rules(const boost::json::object& job, const boost::json::object* old_spec,
                          const FieldPath& path, Errors& errs) {
  required_fields(job, path, {"name", "template"}, errs);
  const auto* name = job.if_contains("name");
  if (name != nullptr) (void)expect_string(errs, FieldPath::field(path, "name"), *name);
  if (const auto* g = job.if_contains("groupName")) {
    (void)expect_string(errs, FieldPath::field(path, "groupName"), *g);
  }
  if (const auto* t = job.if_contains("template")) {
    const FieldPath tpath = FieldPath::field(path, "template");
    if (const auto* tmpl = expect_object(errs, tpath, *t)) {
      if (const auto* m = tmpl->if_contains("metadata")) {
        if (const auto* meta = expect_object(errs, FieldPath::field(tpath, "metadata"), *m)) {
          if (const auto* l = meta->if_contains("labels")) {
            const FieldPath lpath = FieldPath::field(tpath, "metadata.labels");
            if (const auto* labels = expect_object(errs, lpath, *l)) {
              for (const auto& kv : *labels) {
                (void)expect_string(errs, FieldPath::field(lpath, kv.key()), kv.value());
              }
            }
          }
        }
      }
      if (const auto* s = tmpl->if_contains("spec")) {
        if (const auto* spec = expect_object(errs, FieldPath::field(tpath, "spec"), *s)) {
          required_fields(*spec, FieldPath::field(tpath, "spec"), {"template"}, errs);
          // The pod template is core/v1; of its rules, the quantity fields are checked here.
          const auto* pod = spec->if_contains("template");
          const auto* pod_spec =
              pod != nullptr && pod->is_object() ? pod->get_object().if_contains("spec") : nullptr;
          if (pod_spec != nullptr && pod_spec->is_object()) {
            check_pod_spec_quantities(errs, FieldPath::field(tpath, "spec.template.spec"),
                                      pod_spec->get_object());
          }
        }
      }
    }
  }
  if (const auto* r = job.if_contains("replicas")) {
    (void)expect_integer(errs, FieldPath::field(path, "replicas"), *r);
  }
  const boost::json::object* old_job = name != nullptr ? find_job(old_spec, *name) : nullptr;
  depends_on_rules(job, old_job, path, errs);
}

bool has_in_order_startup(const boost::json::object& spec) {
  const auto* sp = spec.if_contains("startupPolicy");
  if (sp == nullptr || !sp->is_object()) return false;
  const auto* order = sp->get_object().if_contains("startupPolicyOrder");
  return order != nullptr && order->is_string() && order->get_string() == "InOrder";
}

bool any_job_depends_on(const boost::json::object& spec) {
  const auto* jobs = spec.if_contains("replicatedJobs");
  if (jobs == nullptr || !jobs->is_array()) return false;
  return std::any_of(jobs->get_array().begin(), jobs->get_array().end(),
                     [](const boost::json::value& j) {
                       return j.is_object() && j.get_object().contains("dependsOn");
                     });
}

void replicated_jobs_rules(const boost::json::object& spec, const boost::json::object* old,
                           const FieldPath& path, Errors& errs) {
  const auto* v = spec.if_contains("replicatedJobs");
  if (v == nullptr) return;
  const FieldPath jobs_path = FieldPath::field(path, "replicatedJobs");
  const auto* jobs = expect_array(errs, jobs_path, *v);
  if (jobs == nullptr) return;
  std::vector<std::optional<boost::json::value>> keys;
  for (const auto& j : *jobs) {
    const auto* o = j.if_object();
    const auto* n = o != nullptr ? o->if_contains("name") : nullptr;
    keys.push_back(n != nullptr ? std::optional<boost::json::value>(*n) : std::nullopt);
  }
  check_unique_map_keys(errs, jobs_path, "name", keys);
  for (std::size_t i = 0; i < jobs->size(); ++i) {
    const FieldPath item = FieldPath::index(jobs_path, i);
    if (const auto* job = expect_object(errs, item, (*jobs)[i])) {
      replicated_job_rules(*job, old, item, errs);
    }
  }
}

void success_policy_rules(const boost::json::object& spec, const boost::json::object* old,
                          const FieldPath& path, Errors& errs) {
  const auto* v = spec.if_contains("successPolicy");
  if (v == nullptr) return;
  const FieldPath p = FieldPath::field(path, "successPolicy");
  if (const auto* o = expect_object(errs, p, *v)) {
    immutable_field(spec, old, "successPolicy", path, errs);
    required_fields(*o, p, {"operator"}, errs);
    enum_field(*o, "operator", p, {"All", "Any"}, errs);
  }
}

void failure_policy_rules(const boost::json::object& spec, const boost::json::object* old,
                          const FieldPath& path, Errors& errs) {
  const auto* v = spec.if_contains("failurePolicy");
  if (v == nullptr) return;
  const FieldPath p = FieldPath::field(path, "failurePolicy");
  const auto* o = expect_object(errs, p, *v);
  if (o == nullptr) return;
  immutable_field(spec, old, "failurePolicy", path, errs);
  if (const auto* m = o->if_contains("maxRestarts")) {
    (void)expect_integer(errs, FieldPath::field(p, "maxRestarts"), *m);
  }
  enum_field(*o, "restartStrategy", p, {"Recreate", "BlockingRecreate", "InPlaceRestart"}, errs);
  const auto* r = o->if_contains("rules");
  if (r == nullptr) return;
  const FieldPath rules_path = FieldPath::field(p, "rules");
  const auto* rules = expect_array(errs, rules_path, *r);
  if (rules == nullptr) return;
  for (std::size_t i = 0; i < rules->size(); ++i) {
    const FieldPath item = FieldPath::index(rules_path, i);
    if (const auto* rule = expect_object(errs, item, (*rules)[i])) {
      required_fields(*rule, item, {"action", "name"}, errs);
      enum_field(*rule, "action", item,
                 {"FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts", "RestartJob",
                  "RestartJobAndIgnoreMaxRestarts"},
                 errs);
    }
  }
}

void startup_policy_rules(const boost::json::object& spec, const boost::json::object* old,
                          const FieldPath& path, Errors& errs) {
  const auto* v = spec.if_contains("startupPolicy");
  if (v == nullptr) return;
  const FieldPath p = FieldPath::field(path, "startupPolicy");
  if (const auto* o = expect_object(errs, p, *v)) {
    immutable_field(spec, old, "startupPolicy", path, errs);
    required_fields(*o, p, {"startupPolicyOrder"}, errs);
    enum_field(*o, "startupPolicyOrder", p, {"AnyOrder", "InOrder"}, errs);
  }
}

void coordinator_rules(const boost::json::object& spec, const FieldPath& path, Errors& errs) {
  const auto* v = spec.if_contains("coordinator");
  if (v == nullptr) return;
  const FieldPath p = FieldPath::field(path, "coordinator");
  if (const auto* o = expect_object(errs, p, *v)) required_fields(*o, p, {"replicatedJob"}, errs);
}

bool template_sets_namespace(const boost::json::value& t) {
  const auto* o = t.if_object();
  const auto* meta = o != nullptr ? o->if_contains("metadata") : nullptr;
  const auto* ns =
      meta != nullptr && meta->is_object() ? meta->get_object().if_contains("namespace") : nullptr;
  return ns != nullptr && !(ns->is_string() && ns->get_string().empty());
}

void volume_claim_policies_rules(const boost::json::object& spec, const boost::json::object* old,
                                 const FieldPath& path, Errors& errs) {
  const auto* v = spec.if_contains("volumeClaimPolicies");
  if (v == nullptr) return;
  const FieldPath p = FieldPath::field(path, "volumeClaimPolicies");
  const auto* policies = expect_array(errs, p, *v);
  if (policies == nullptr) return;
  check_max_items(errs, p, policies->size(), 50);
  immutable_field(spec, old, "volumeClaimPolicies", path, errs);
  for (std::size_t i = 0; i < policies->size(); ++i) {
    const FieldPath item = FieldPath::index(p, i);
    const auto* policy = expect_object(errs, item, (*policies)[i]);
    if (policy == nullptr) continue;
    const auto* t = policy->if_contains("templates");
    const boost::json::array* templates =
        t != nullptr ? expect_array(errs, FieldPath::field(item, "templates"), *t) : nullptr;
    if (templates != nullptr) {
      check_max_items(errs, FieldPath::field(item, "templates"), templates->size(), 50);
      if (std::any_of(templates->begin(), templates->end(), template_sets_namespace)) {
        errs.push_back(cel_invalid(item.str(), std::nullopt,
                                   "namespace cannot be set for VolumeClaimPolicies templates"));
      }
    }
    if (const auto* rp = policy->if_contains("retentionPolicy")) {
      const FieldPath rpath = FieldPath::field(item, "retentionPolicy");
      if (const auto* retention = expect_object(errs, rpath, *rp)) {
        enum_field(*retention, "whenDeleted", rpath, {"Delete", "Retain"}, errs);
      }
    }
  }
}

}  // namespace

void jobset_spec_rules(const boost::json::object& spec, const boost::json::object* old,
                       const FieldPath& path, Errors& errs) {
  if (has_in_order_startup(spec) && any_job_depends_on(spec)) {
    errs.push_back(cel_invalid(path.str(), std::nullopt,
                               "StartupPolicy and DependsOn APIs are mutually exclusive"));
  }
  replicated_jobs_rules(spec, old, path, errs);
  if (const auto* n = spec.if_contains("network")) {
    if (expect_object(errs, FieldPath::field(path, "network"), *n) != nullptr) {
      immutable_field(spec, old, "network", path, errs);
    }
  }
  success_policy_rules(spec, old, path, errs);
  failure_policy_rules(spec, old, path, errs);
  startup_policy_rules(spec, old, path, errs);
  coordinator_rules(spec, path, errs);
  if (const auto* ttl = spec.if_contains("ttlSecondsAfterFinished")) {
    const FieldPath p = FieldPath::field(path, "ttlSecondsAfterFinished");
    if (auto value = expect_integer(errs, p, *ttl)) check_minimum(errs, p, *value, 0);
  }
  volume_claim_policies_rules(spec, old, path, errs);
}

}  // namespace trainer::detail
