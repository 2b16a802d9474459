// SPDX-License-Identifier: Apache-2.0
#include "semantic_compare.hpp"
#include "trainer/base64.hpp"

#include "trainer/codec.hpp"
#include "trainer/quantity.hpp"

#include <boost/json/serialize.hpp>

#include <map>
#include <set>
#include <string_view>

namespace golden {
namespace {

namespace json = boost::json;

struct Walker {
  std::vector<std::string> diffs;
  bool snapshot_runtime = false;  // inside the runtime of a snapshot ConfigMap

  static bool is_empty(const json::value* v) {
    if (v == nullptr || v->is_null()) return true;
    if (v->is_object()) return v->get_object().empty();
    if (v->is_array()) return v->get_array().empty();
    if (v->is_string()) return v->get_string().empty();
    return false;
  }

  bool ignored(const std::vector<std::string>& keys, std::string_view key) const {
    if (keys.empty() && key == "status") return true;
    if (keys.size() == 1 && keys[0] == "metadata") {
      static const std::set<std::string_view> kIgnored = {
          "uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink"};
      if (kIgnored.count(key) != 0) return true;
      if (snapshot_runtime && key == "finalizers") return true;
    }
    return false;
  }

  static bool in_quantity_map(const std::vector<std::string>& keys) {
    if (keys.size() >= 2 && keys[keys.size() - 2] == "resources" &&
        (keys.back() == "limits" || keys.back() == "requests")) {
      return true;
    }
    return keys.size() == 2 && keys[0] == "spec" && keys[1] == "minResources";
  }

  static std::string key_of(const json::value& item, const std::string& list) {
    if (!item.is_object()) return json::serialize(item);
    const auto& o = item.get_object();
    auto field = [&](std::string_view k) {
      const auto* v = o.if_contains(k);
      return v != nullptr ? json::serialize(*v) : std::string("null");
    };
    if (list == "env" || list == "volumes") return field("name");
    if (list == "volumeMounts") return field("name") + "|" + field("mountPath");
    return json::serialize(item);  // tolerations: the whole item
  }

  void diff(const std::string& path, const std::string& what) {
    diffs.push_back(path + ": " + what);
  }

  void scalar(const json::value& e, const json::value& a, const std::string& path, bool quantity) {
    if (quantity && (e.is_string() || e.is_number()) && (a.is_string() || a.is_number())) {
      auto text = [](const json::value& v) {
        return v.is_string() ? std::string(v.get_string()) : json::serialize(v);
      };
      auto qe = trainer::Quantity::parse(text(e));
      auto qa = trainer::Quantity::parse(text(a));
      if (qe && qa && *qe == *qa) return;
      diff(path, "quantity " + text(e) + " != " + text(a));
      return;
    }
    if (e.is_number() && a.is_number()) {
      if (e.is_double() || a.is_double()) {
        if (e.to_number<double>() == a.to_number<double>()) return;
      } else if (e.is_int64() == a.is_int64() ? e == a : json::serialize(e) == json::serialize(a)) {
        return;
      }
      diff(path, json::serialize(e) + " != " + json::serialize(a));
      return;
    }
    if (e != a) diff(path, "expected " + json::serialize(e) + ", got " + json::serialize(a));
  }

  void compare(const json::value* e, const json::value* a, std::vector<std::string>& keys,
               const std::string& path) {
    if (is_empty(e) && is_empty(a)) return;
    // JobSet spec.suspend: absent == false.
    if (keys.size() == 2 && keys[0] == "spec" && keys[1] == "suspend") {
      const bool ev = e != nullptr && e->is_bool() && e->get_bool();
      const bool av = a != nullptr && a->is_bool() && a->get_bool();
      if (ev != av) diff(path, "suspend differs");
      return;
    }
    if (e == nullptr || e->is_null()) {
      diff(path, "unexpected " + json::serialize(*a));
      return;
    }
    if (a == nullptr || a->is_null()) {
      diff(path, "missing, expected " + json::serialize(*e));
      return;
    }
    if (e->is_object() && a->is_object()) {
      std::set<std::string> names;
      for (const auto& [k, v] : e->get_object()) names.emplace(k);
      for (const auto& [k, v] : a->get_object()) names.emplace(k);
      for (const auto& k : names) {
        if (ignored(keys, k)) continue;
        keys.push_back(k);
        compare(e->get_object().if_contains(k), a->get_object().if_contains(k), keys,
                path + "." + k);
        keys.pop_back();
      }
      return;
    }
    if (e->is_array() && a->is_array()) {
      const std::string list = keys.empty() ? std::string() : keys.back();
      const auto& ea = e->get_array();
      const auto& aa = a->get_array();
      if (list == "env" || list == "volumes" || list == "volumeMounts" || list == "tolerations") {
        std::map<std::string, const json::value*> em;
        std::map<std::string, const json::value*> am;
        for (const auto& v : ea) {
          if (!em.emplace(key_of(v, list), &v).second) diff(path, "duplicate expected item");
        }
        for (const auto& v : aa) {
          if (!am.emplace(key_of(v, list), &v).second) diff(path, "duplicate actual item");
        }
        for (const auto& [k, v] : em) {
          auto it = am.find(k);
          if (it == am.end()) {
            diff(path, "missing item " + json::serialize(*v));
            continue;
          }
          keys.push_back("[]");
          compare(v, it->second, keys, path + "[" + k + "]");
          keys.pop_back();
        }
        for (const auto& [k, v] : am) {
          if (em.count(k) == 0) diff(path, "unexpected item " + json::serialize(*v));
        }
        return;
      }
      if (ea.size() != aa.size()) {
        diff(path, "expected " + std::to_string(ea.size()) + " items, got " +
                       std::to_string(aa.size()) + ": " + json::serialize(*a));
        return;
      }
      for (std::size_t i = 0; i < ea.size(); ++i) {
        keys.push_back("[]");
        compare(&ea[i], &aa[i], keys, path + "[" + std::to_string(i) + "]");
        keys.pop_back();
      }
      return;
    }
    std::vector<std::string> parent(keys.begin(), keys.end() - (keys.empty() ? 0 : 1));
    scalar(*e, *a, path, in_quantity_map(parent));
  }
};

std::string identity(const json::value& v) {
  if (!v.is_object()) return "<not an object>";
  const auto& o = v.get_object();
  auto s = [](const json::object& obj, std::string_view k) {
    const auto* x = obj.if_contains(k);
    return x != nullptr && x->is_string() ? std::string(x->get_string()) : std::string();
  };
  const auto* meta = o.if_contains("metadata");
  const json::object empty;
  const auto& m = meta != nullptr && meta->is_object() ? meta->get_object() : empty;
  return s(o, "apiVersion") + " " + s(o, "kind") + " " + s(m, "namespace") + "/" + s(m, "name");
}

// Replaces the SSH placeholders and parses the snapshot's runtime text on both sides.
void prepare(json::value& expected, json::value& actual, const CompareOptions& options,
             std::vector<std::string>& diffs) {
  if (!expected.is_object() || !actual.is_object()) return;
  auto* ed = expected.get_object().if_contains("data");
  auto* ad = actual.get_object().if_contains("data");
  if (ed == nullptr || ad == nullptr || !ed->is_object() || !ad->is_object()) return;
  auto& e = ed->get_object();
  auto& a = ad->get_object();
  if (auto* k = e.if_contains("ssh-privatekey"); k != nullptr && *k == "__SSH_PRIVATE_KEY_PEM__") {
    *k = trainer::base64_encode(options.ssh_private_key);
  }
  if (auto* k = e.if_contains("ssh-publickey"); k != nullptr && *k == "__SSH_AUTHORIZED_KEY__") {
    *k = trainer::base64_encode(options.ssh_public_key);
  }
  auto* er = e.if_contains("runtime");
  auto* ar = a.if_contains("runtime");
  if (er != nullptr && ar != nullptr && er->is_string() && ar->is_string()) {
    auto pe = trainer::parse_documents(er->get_string());
    auto pa = trainer::parse_documents(ar->get_string());
    if (!pe || !pa || pe->size() != 1 || pa->size() != 1) {
      diffs.push_back(identity(expected) + ": data.runtime is not one YAML document");
      return;
    }
    *er = (*pe)[0];
    *ar = (*pa)[0];
  }
}

}  // namespace

std::vector<std::string> compare_values(const json::value& expected, const json::value& actual,
                                        const std::string& path) {
  Walker w;
  std::vector<std::string> keys;
  w.compare(&expected, &actual, keys, path);
  return w.diffs;
}

std::vector<std::string> compare_object_sets(const std::vector<json::value>& expected,
                                             const std::vector<json::value>& actual,
                                             const CompareOptions& options) {
  std::vector<std::string> diffs;
  std::map<std::string, json::value> want;
  std::map<std::string, json::value> got;
  for (const auto& v : expected) {
    if (!want.emplace(identity(v), v).second) diffs.push_back("duplicate expected " + identity(v));
  }
  for (const auto& v : actual) {
    if (!got.emplace(identity(v), v).second) diffs.push_back("duplicate actual " + identity(v));
  }
  for (auto& [id, e] : want) {
    auto it = got.find(id);
    if (it == got.end()) {
      diffs.push_back("missing object " + id);
      continue;
    }
    json::value a = it->second;
    prepare(e, a, options, diffs);
    Walker w;
    std::vector<std::string> keys;
    // The snapshot's runtime: compared with its own root (metadata ignores + finalizers).
    auto* er =
        e.is_object() && e.get_object().if_contains("data") != nullptr && e.at("data").is_object()
            ? e.at("data").get_object().if_contains("runtime")
            : nullptr;
    auto* ar =
        a.is_object() && a.get_object().if_contains("data") != nullptr && a.at("data").is_object()
            ? a.at("data").get_object().if_contains("runtime")
            : nullptr;
    if (er != nullptr && ar != nullptr && er->is_object()) {
      Walker rw;
      rw.snapshot_runtime = true;
      std::vector<std::string> rkeys;
      rw.compare(er, ar, rkeys, id + " data.runtime");
      for (auto& d : rw.diffs) diffs.push_back(std::move(d));
      e.at("data").get_object().erase("runtime");
      a.at("data").get_object().erase("runtime");
    }
    w.compare(&e, &a, keys, id);
    for (auto& d : w.diffs) diffs.push_back(std::move(d));
  }
  for (const auto& [id, a] : got) {
    if (want.count(id) == 0) diffs.push_back("unexpected object " + id);
  }
  return diffs;
}

}  // namespace golden
