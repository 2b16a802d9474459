// SPDX-License-Identifier: Apache-2.0
//
// Quantity fields: CRD schema (kube-openapi), typed decode (resource.ParseQuantity) and core
// validation (k8s.io/kubernetes pkg/apis/core/validation: ValidateResourceQuantityValue,
// validateVolumeSource's emptyDir rule).
#include "validation/quantity_rules.hpp"
#include "trainer/json_path.hpp"

#include "trainer/names.hpp"

#include <string_view>

namespace trainer::detail {
namespace {

namespace json = boost::json;

// helper.IsExtendedResourceName: a `/` outside the kubernetes.io/ namespace, not a `requests.`
// quota name, and `requests.<name>` a qualified name.
bool is_extended_resource_name(std::string_view name) {
  if (name.find('/') == std::string_view::npos) return false;
  if (name.find("kubernetes.io/") != std::string_view::npos) return false;
  if (name.rfind("requests.", 0) == 0) return false;
  return is_qualified_name("requests." + std::string(name)).empty();
}

void container_list(Errors& errs, const FieldPath& path, const json::array* containers) {
  if (containers == nullptr) return;
  for (std::size_t i = 0; i < containers->size(); ++i) {
    const auto* c = (*containers)[i].if_object();
    if (c == nullptr) continue;
    if (const auto* r = find_object(*c, "resources")) {
      const FieldPath item = FieldPath::index(path, i);
      check_resource_requirements(errs, FieldPath::field(item, "resources"), *r);
    }
  }
}

}  // namespace

std::optional<Quantity> check_quantity(Errors& errs, const FieldPath& path, const json::value& v) {
  std::string text;
  if (const auto* s = v.if_string()) {
    text.assign(s->data(), s->size());
    if (!Quantity::matches_schema_pattern(text)) {
      report_pattern(errs, path, text, Quantity::kSchemaPattern);
      return std::nullopt;
    }
  } else if (const auto i = as_integer(v)) {
    text = std::to_string(*i);
  } else if (v.is_uint64()) {
    text = std::to_string(v.get_uint64());
  } else {
    const std::string actual = json_type_name(v);
    const std::string p = path.str();
    errs.push_back(field_type_invalid(
        p, json::value(actual), p + " in body must be of type integer,string: \"" + actual + "\""));
    return std::nullopt;
  }
  auto q = Quantity::parse(text);
  if (!q) {
    errs.push_back(field_invalid(path.str(), json::value(text), q.error().message));
    return std::nullopt;
  }
  return std::move(*q);
}

void check_resource_list(Errors& errs, const FieldPath& path, const json::value& v) {
  const auto* list = expect_object(errs, path, v);
  if (list == nullptr) return;
  for (const auto& kv : *list) {
    const std::string_view name = kv.key();
    const auto q = check_quantity(errs, FieldPath::field(path, name), kv.value());
    if (!q) continue;
    const FieldPath key_path = FieldPath::map_key(path, name);
    if (q->sign() < 0) {
      errs.push_back(field_invalid(key_path.str(), json::value(q->to_string()),
                                   "must be greater than or equal to 0"));
    } else if (is_extended_resource_name(name) && q->milli_value() % 1000 != 0) {
      errs.push_back(
          field_invalid(key_path.str(), json::value(q->to_string()), "must be an integer"));
    }
  }
}

void check_resource_requirements(Errors& errs, const FieldPath& path,
                                 const json::object& requirements) {
  for (const char* key : {"limits", "requests"}) {
    if (const auto* list = requirements.if_contains(key)) {
      check_resource_list(errs, FieldPath::field(path, key), *list);
    }
  }
}

void check_volume_quantities(Errors& errs, const FieldPath& path, const json::object& volume) {
  if (const auto* empty_dir = find_object(volume, "emptyDir")) {
    if (const auto* size = empty_dir->if_contains("sizeLimit")) {
      const FieldPath p = FieldPath::field(path, "emptyDir.sizeLimit");
      const auto q = check_quantity(errs, p, *size);
      if (q && q->sign() < 0) {
        errs.push_back(
            field_forbidden(p.str(), "SizeLimit field must be a valid resource quantity"));
      }
    }
  }
  if (const auto* ephemeral = find_object(volume, "ephemeral")) {
    if (const auto* tmpl = find_object(*ephemeral, "volumeClaimTemplate")) {
      if (const auto* spec = find_object(*tmpl, "spec")) {
        if (const auto* r = find_object(*spec, "resources")) {
          check_resource_requirements(
              errs, FieldPath::field(path, "ephemeral.volumeClaimTemplate.spec.resources"), *r);
        }
      }
    }
  }
}

void check_pod_spec_quantities(Errors& errs, const FieldPath& path, const json::object& pod_spec) {
  if (const auto* volumes = find_array(pod_spec, "volumes")) {
    const FieldPath volumes_path = FieldPath::field(path, "volumes");
    for (std::size_t i = 0; i < volumes->size(); ++i) {
      if (const auto* volume = (*volumes)[i].if_object()) {
        check_volume_quantities(errs, FieldPath::index(volumes_path, i), *volume);
      }
    }
  }
  container_list(errs, FieldPath::field(path, "initContainers"),
                 find_array(pod_spec, "initContainers"));
  container_list(errs, FieldPath::field(path, "containers"), find_array(pod_spec, "containers"));
  container_list(errs, FieldPath::field(path, "ephemeralContainers"),
                 find_array(pod_spec, "ephemeralContainers"));
  if (const auto* overhead = pod_spec.if_contains("overhead")) {
    check_resource_list(errs, FieldPath::field(path, "overhead"), *overhead);
  }
  if (const auto* r = find_object(pod_spec, "resources")) {
    check_resource_requirements(errs, FieldPath::field(path, "resources"), *r);
  }
}

}  // namespace trainer::detail
