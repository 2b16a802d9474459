// SPDX-License-Identifier: Apache-2.0
//
// The `info` member of a plugin request (docs/plugins.md) and its way back: `info_to_json`
// writes the view, `apply_info_patch` merges a reply's patch into it with the strategic-merge
// engine of lib/kube and decodes the result into a fresh Info, which replaces the old one only
// when the whole view decoded (so a bad reply leaves `info` untouched).
#include "api/struct_codec.hpp"
#include "kube/quantity_json.hpp"
#include "kube/strategic_merge.hpp"
#include "plugin/info_describe.hpp"
#include "trainer/plugin.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace trainer {
namespace detail {

// The two member types of the view with rules of their own, reached by the struct codec by
// overload.

void read_value(DecodeContext& c, const boost::json::value& v, const FieldPath& path,
                PodEndpoints& out) {
  std::vector<std::string> names;
  read_value(c, v, path, names);
  out = PodEndpoints(std::move(names));
}

boost::json::value to_value(Enc, const PodEndpoints& endpoints) {
  boost::json::array a;
  a.reserve(endpoints.size());
  for (auto e : endpoints) a.emplace_back(std::move(e));
  return boost::json::value(std::move(a));
}

void read_value(DecodeContext& c, const boost::json::value& v, const FieldPath& path,
                std::map<std::string, Quantity>& out) {
  out.clear();
  if (v.is_null()) return;
  if (!v.is_object()) {
    c.type_error(path, v, "expected object");
    return;
  }
  for (const auto& kv : v.get_object()) {
    const FieldPath child = FieldPath::map_key(path, kv.key());
    auto q = quantity_from_json(kv.value(), kv.key());
    if (!q) {
      auto fe = field_invalid(child.str(), kv.value(), q.error().message);
      Error e(ErrorCode::kInvalid, fe.to_string());
      e.fields.push_back(std::move(fe));
      c.fail(std::move(e));
      return;
    }
    out.emplace(std::string(kv.key()), std::move(*q));
  }
}

boost::json::value to_value(Enc, const std::map<std::string, Quantity>& requests) {
  boost::json::object o;
  for (const auto& [name, q] : requests) o[name] = q.to_string();
  return boost::json::value(std::move(o));
}

}  // namespace detail

namespace {

namespace json = boost::json;
using detail::DecodeContext;
using detail::Enc;
using detail::FieldMatch;
using detail::read_fields;
using detail::to_value;

void read_info(DecodeContext& c, const json::value& v, Info& out) {
  const detail::FieldPath root("info");
  read_fields(c, v, root, [&](const FieldMatch& m) {
    // The policies are optional members: one the patch deleted must not survive from `info`.
    if (m.key == "runtimePolicy") out.runtime_policy = {};
    if (m.key == "templateSpec") {
      read_fields(c, m.value, m.path, [&](const FieldMatch& t) {
        return t("jobSetSpec", out.template_spec.jobset_spec);
      });
      c.refuse_unknown_fields();
      return true;
    }
    return m("labels", out.labels) || m("annotations", out.annotations) ||
           m("runtime", out.runtime) || m("runtimePolicy", out.runtime_policy) ||
           m("scheduler", out.scheduler) || m("podSets", out.template_spec.pod_sets);
  });
  c.refuse_unknown_fields();
}

Error as_invalid(Error e) {
  e.code = ErrorCode::kInvalid;
  return e;
}

}  // namespace

json::object info_to_json(const Info& info) {
  json::object o;
  o["labels"] = to_value(Enc{}, info.labels);
  o["annotations"] = to_value(Enc{}, info.annotations);
  o["runtime"] = to_value(Enc{}, info.runtime);
  o["runtimePolicy"] = to_value(Enc{}, info.runtime_policy);
  o["scheduler"] = to_value(Enc{}, info.scheduler);
  o["podSets"] = to_value(Enc{}, info.template_spec.pod_sets);
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
