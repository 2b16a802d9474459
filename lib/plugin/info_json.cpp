// SPDX-License-Identifier: Apache-2.0
//
// The `info` member of a plugin request (docs/plugins.md) and its way back: `info_to_json`
// writes the view, `apply_info_patch` merges a reply's patch into it with the strategic-merge
// engine of lib/kube and decodes the result into a fresh Info, which replaces the old one only
// when the whole view decoded (so a bad reply leaves `info` untouched).
#include "api/struct_codec.hpp"
#include "kube/quantity_json.hpp"
#include "kube/strategic_merge.hpp"
#include "trainer/plugin.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>
#include <utility>

namespace trainer {
namespace {

namespace json = boost::json;
using detail::DecodeContext;
using detail::Enc;
using detail::field_path;
using detail::FieldMatch;
using detail::index_path;
using detail::read_fields;
using detail::read_value;

// ---- Info -> JSON ----------------------------------------------------------------------------

json::value string_map(const StringMap& m) {
  return detail::to_value(Enc{}, m);
}

json::object container_json(const Container& c) {
  json::object o;
  o["name"] = c.name;
  o["image"] = c.image;
  json::array command;
  for (const auto& arg : c.command) command.emplace_back(arg);
  o["command"] = std::move(command);
  o["env"] = c.env;
  o["ports"] = c.ports;
  o["volumeMounts"] = c.volume_mounts;
  return o;
}

json::array containers_json(const std::vector<Container>& containers) {
  json::array a;
  for (const auto& c : containers) a.emplace_back(container_json(c));
  return a;
}

json::object pod_set_json(const PodSet& ps) {
  json::object o;
  o["name"] = ps.name;
  if (ps.ancestor) o["ancestor"] = *ps.ancestor;
  if (ps.count) o["count"] = *ps.count;
  o["initContainers"] = containers_json(ps.init_containers);
  o["containers"] = containers_json(ps.containers);
  o["volumes"] = ps.volumes;
  json::array endpoints;
  endpoints.reserve(ps.endpoints.size());
  for (auto e : ps.endpoints) endpoints.emplace_back(std::move(e));
  o["endpoints"] = std::move(endpoints);
  json::object requests;
  for (const auto& [name, q] : ps.single_pod_requests) requests[name] = q.to_string();
  o["singlePodRequests"] = std::move(requests);
  return o;
}

// ---- JSON -> Info ----------------------------------------------------------------------------
// The view's own structs are read with explicit loops: the codec's vector/optional templates
// find element readers by argument-dependent lookup, which these file-local readers are not
// part of.

template <class T, class Read>
void read_list(DecodeContext& c, const json::value& v, const std::string& path, std::vector<T>& out,
               Read read) {
  out.clear();
  if (v.is_null()) return;
  if (!v.is_array()) {
    c.type_error(path, v, "expected array");
    return;
  }
  for (std::size_t i = 0; i < v.get_array().size() && !c.failed(); ++i) {
    T item{};
    read(c, v.get_array()[i], index_path(path, i), item);
    out.push_back(std::move(item));
  }
}

// Unknown members are errors, not warnings: a misspelt member of a reply would otherwise be
// dropped without a word.
template <class Match>
void read_strict(DecodeContext& c, const json::value& v, const std::string& path, Match&& match) {
  read_fields(c, v, path, std::forward<Match>(match));
  auto warnings = c.take_warnings();
  if (!warnings.empty() && !c.failed()) c.fail(Error(ErrorCode::kInvalid, warnings.front()));
}

void read_container(DecodeContext& c, const json::value& v, const std::string& path,
                    Container& out) {
  read_strict(c, v, path, [&](const FieldMatch& m) {
    return m("name", out.name) || m("image", out.image) || m("command", out.command) ||
           m("env", out.env) || m("ports", out.ports) || m("volumeMounts", out.volume_mounts);
  });
}

void read_requests(DecodeContext& c, const json::value& v, const std::string& path,
                   std::map<std::string, Quantity>& out) {
  out.clear();
  if (v.is_null()) return;
  if (!v.is_object()) {
    c.type_error(path, v, "expected object");
    return;
  }
  for (const auto& kv : v.get_object()) {
    const std::string child = detail::key_path(path, kv.key());
    auto q = detail::quantity_from_json(kv.value(), kv.key());
    if (!q) {
      auto fe = field_invalid(child, kv.value(), q.error().message);
      Error e(ErrorCode::kInvalid, fe.to_string());
      e.fields.push_back(std::move(fe));
      c.fail(std::move(e));
      return;
    }
    out.emplace(std::string(kv.key()), std::move(*q));
  }
}

void read_pod_set(DecodeContext& c, const json::value& v, const std::string& path, PodSet& out) {
  read_strict(c, v, path, [&](const FieldMatch& m) {
    if (m.key == "initContainers") {
      read_list(c, m.value, m.path, out.init_containers, read_container);
      return true;
    }
    if (m.key == "containers") {
      read_list(c, m.value, m.path, out.containers, read_container);
      return true;
    }
    if (m.key == "singlePodRequests") {
      read_requests(c, m.value, m.path, out.single_pod_requests);
      return true;
    }
    if (m.key == "endpoints") {
      std::vector<std::string> names;
      read_value(c, m.value, m.path, names);
      out.endpoints = PodEndpoints(std::move(names));
      return true;
    }
    return m("name", out.name) || m("ancestor", out.ancestor) || m("count", out.count) ||
           m("volumes", out.volumes);
  });
}

void read_info(DecodeContext& c, const json::value& v, Info& out) {
  const std::string root = "info";
  read_strict(c, v, root, [&](const FieldMatch& m) {
    if (m.key == "runtime") {
      read_strict(c, m.value, m.path, [&](const FieldMatch& r) {
        return r("kind", out.runtime.kind) || r("name", out.runtime.name) ||
               r("labels", out.runtime.labels) || r("annotations", out.runtime.annotations);
      });
      return true;
    }
    if (m.key == "runtimePolicy") {
      out.runtime_policy = {};
      read_strict(c, m.value, m.path, [&](const FieldMatch& r) {
        return r("mlPolicy", out.runtime_policy.ml_policy) ||
               r("podGroupPolicy", out.runtime_policy.pod_group_policy);
      });
      return true;
    }
    if (m.key == "scheduler") {
      read_strict(c, m.value, m.path, [&](const FieldMatch& r) {
        return r("podLabels", out.scheduler.pod_labels) ||
               r("podAnnotations", out.scheduler.pod_annotations);
      });
      return true;
    }
    if (m.key == "podSets") {
      read_list(c, m.value, m.path, out.template_spec.pod_sets, read_pod_set);
      return true;
    }
    if (m.key == "templateSpec") {
      read_strict(c, m.value, m.path, [&](const FieldMatch& r) {
        return r("jobSetSpec", out.template_spec.jobset_spec);
      });
      return true;
    }
    return m("labels", out.labels) || m("annotations", out.annotations);
  });
}

Error as_invalid(Error e) {
  e.code = ErrorCode::kInvalid;
  return e;
}

}  // namespace

json::object info_to_json(const Info& info) {
  json::object o;
  o["labels"] = string_map(info.labels);
  o["annotations"] = string_map(info.annotations);
  o["runtime"] = json::object{{"kind", info.runtime.kind},
                              {"name", info.runtime.name},
                              {"labels", string_map(info.runtime.labels)},
                              {"annotations", string_map(info.runtime.annotations)}};
  json::object policy;
  detail::write_field(policy, "mlPolicy", info.runtime_policy.ml_policy, false);
  detail::write_field(policy, "podGroupPolicy", info.runtime_policy.pod_group_policy, false);
  o["runtimePolicy"] = std::move(policy);
  o["scheduler"] = json::object{{"podLabels", string_map(info.scheduler.pod_labels)},
                                {"podAnnotations", string_map(info.scheduler.pod_annotations)}};
  json::array pod_sets;
  for (const auto& ps : info.template_spec.pod_sets) pod_sets.emplace_back(pod_set_json(ps));
  o["podSets"] = std::move(pod_sets);
  o["templateSpec"] = json::object{{"jobSetSpec", info.template_spec.jobset_spec}};
  return o;
}

Result<void> apply_info_patch(Info& info, const json::value& patch) {
  if (!patch.is_object()) {
    auto fe = field_type_invalid("info", patch, "expected object");
    Error e(ErrorCode::kInvalid, fe.to_string());
    e.fields.push_back(std::move(fe));
    return tl::unexpected(std::move(e));
  }
  auto merged = detail::strategic_merge(json::value(info_to_json(info)), patch,
                                        detail::SchemaType::kPluginInfo);
  if (!merged) return tl::unexpected(as_invalid(merged.error()));
  // Decoded into a copy, so that `info` changes only when the whole view is valid; the parts
  // the view does not show (the runtime's unpatched template) carry over.
  Info out = info;
  DecodeContext c;
  read_info(c, *merged, out);
  if (c.failed()) return tl::unexpected(as_invalid(*c.error()));
  info = std::move(out);
  return {};
}

}  // namespace trainer
