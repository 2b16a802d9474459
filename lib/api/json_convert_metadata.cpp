// SPDX-License-Identifier: Apache-2.0
#include "api/json_convert_metadata.hpp"

namespace trainer::detail {

namespace json = boost::json;

void read_value(DecodeContext& c, const json::value& v, const std::string& path, ObjectMeta& out) {
  out = ObjectMeta{};
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("name", out.name) || m("generateName", out.generate_name) ||
           m("namespace", out.namespace_) || m("uid", out.uid) ||
           m("resourceVersion", out.resource_version) || m("generation", out.generation) ||
           m("creationTimestamp", out.creation_timestamp) ||
           m("deletionTimestamp", out.deletion_timestamp) ||
           m("deletionGracePeriodSeconds", out.deletion_grace_period_seconds) ||
           m("labels", out.labels) || m("annotations", out.annotations) ||
           m("ownerReferences", out.owner_references) || m("finalizers", out.finalizers) ||
           m("managedFields", out.managed_fields) ||
           // Deprecated and always empty since Kubernetes 1.20; known to Go, so no warning.
           m.ignored("selfLink");
  });
}

json::value to_value(Enc, const ObjectMeta& meta) {
  json::object o;
  put(o, "name", meta.name);
  put(o, "generateName", meta.generate_name);
  put(o, "namespace", meta.namespace_);
  put(o, "uid", meta.uid);
  put(o, "resourceVersion", meta.resource_version);
  put(o, "generation", meta.generation);
  put(o, "creationTimestamp", meta.creation_timestamp);
  put(o, "deletionTimestamp", meta.deletion_timestamp);
  put(o, "deletionGracePeriodSeconds", meta.deletion_grace_period_seconds);
  put_nonempty(o, "labels", meta.labels);
  put_nonempty(o, "annotations", meta.annotations);
  put_nonempty(o, "ownerReferences", meta.owner_references);
  put_nonempty(o, "finalizers", meta.finalizers);
  put_nonempty(o, "managedFields", meta.managed_fields);
  return json::value(std::move(o));
}

bool is_empty(const ObjectMeta& meta) {
  return to_value(Enc{}, meta).get_object().empty();
}

bool check_type_meta(DecodeContext& c, const json::value& doc, std::string_view kind) {
  if (!doc.is_object()) {
    c.type_error("<document>", doc, "expected object");
    return false;
  }
  const json::object& o = doc.get_object();
  const auto check = [&](std::string_view field, std::string_view expected) {
    const json::value* v = o.if_contains(field);
    FieldError fe;
    if (v == nullptr || v->is_null()) {
      fe = field_required(std::string(field), "must be \"" + std::string(expected) + "\"");
    } else if (!v->is_string() || v->get_string() != expected) {
      fe = field_invalid(std::string(field), *v, "expected \"" + std::string(expected) + "\"");
    } else {
      return true;
    }
    Error e(ErrorCode::kParse, fe.to_string());
    e.fields.push_back(std::move(fe));
    c.fail(std::move(e));
    return false;
  };
  return check("apiVersion", kApiVersion) && check("kind", kind);
}

json::object type_and_object_meta(const std::string& api_version, const std::string& kind,
                                  const ObjectMeta& meta) {
  json::object o;
  o.emplace("apiVersion", api_version);
  o.emplace("kind", kind);
  // Go always writes the embedded ObjectMeta struct (omitempty does not apply to structs).
  o.emplace("metadata", to_value(Enc{}, meta));
  return o;
}

}  // namespace trainer::detail
