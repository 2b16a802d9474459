// SPDX-License-Identifier: Apache-2.0
#include "local/env.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>

namespace trainer::local::detail {
namespace json = boost::json;
namespace {

std::string str(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

bool flag(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_bool() && v->get_bool();
}

// C identifier-ish names, as the kubelet accepts for envFrom keys.
bool valid_env_name(std::string_view name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return c == '_' || c == '-' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
  });
}

class Builder {
 public:
  void set(const std::string& name, std::string value) {
    if (const auto found = index_.find(name); found != index_.end()) {
      list_[found->second].second = value;
    } else {
      index_.emplace(name, list_.size());
      list_.emplace_back(name, value);
    }
    vars_[name] = std::move(value);
  }
  [[nodiscard]] const std::map<std::string, std::string>& vars() const { return vars_; }
  EnvList take() { return std::move(list_); }

 private:
  EnvList list_;
  std::map<std::string, std::size_t> index_;
  std::map<std::string, std::string> vars_;
};

// `metadata.annotations['key']` / `metadata.labels['key']` -> key.
std::optional<std::string> bracket_key(std::string_view path, std::string_view prefix) {
  if (path.size() < prefix.size() + 4 || path.substr(0, prefix.size()) != prefix) return {};
  auto rest = path.substr(prefix.size());
  if (rest.substr(0, 2) != "['" || rest.substr(rest.size() - 2) != "']") return {};
  return std::string(rest.substr(2, rest.size() - 4));
}

Result<std::string> field_ref(const Plan& plan, const PodPlan& pod, const PodIdentity& id,
                              std::string_view field, const std::string& path) {
  if (field == "metadata.name") return id.name;
  if (field == "metadata.namespace") return plan.namespace_;
  if (field == "metadata.uid") return id.uid;
  if (field == "spec.nodeName") return id.node_name;
  if (field == "spec.serviceAccountName") return pod.service_account;
  if (field == "status.podIP" || field == "status.podIPs") return pod.address;
  if (field == "status.hostIP" || field == "status.hostIPs") return std::string("127.0.0.1");
  for (const auto& [prefix, map] :
       {std::pair<std::string_view, const std::map<std::string, std::string>*>{
            "metadata.annotations", &pod.annotations},
        {"metadata.labels", &pod.labels}}) {
    if (auto key = bracket_key(field, prefix)) {
      const auto found = map->find(*key);
      return found != map->end() ? found->second : std::string();
    }
  }
  return tl::unexpected(Error::invalid({field_not_supported(
      path, json::value(field),
      {"metadata.name", "metadata.namespace", "metadata.uid", "metadata.labels['<KEY>']",
       "metadata.annotations['<KEY>']", "spec.nodeName", "spec.serviceAccountName", "status.podIP",
       "status.hostIP"})}));
}

Result<std::string> key_ref(const Plan& plan, const json::object& ref, bool secret,
                            const std::string& path) {
  const std::string name = str(ref, "name");
  const std::string key = str(ref, "key");
  const auto& store = secret ? plan.secrets : plan.config_maps;
  const char* kind = secret ? "Secret" : "ConfigMap";
  const auto object = store.find(name);
  if (object == store.end()) {
    Error e(ErrorCode::kNotFound, path + ".name: " + kind + " \"" + name +
                                      "\" is not among the rendered objects, so it cannot be "
                                      "resolved locally (pass it with -f)");
    e.fields.push_back(
        field_invalid(path + ".name", json::value(name), std::string(kind) + " not found"));
    return tl::unexpected(std::move(e));
  }
  const auto value = object->second.find(key);
  if (value == object->second.end()) {
    Error e(ErrorCode::kNotFound,
            path + ".key: " + kind + " \"" + name + "\" has no key \"" + key + "\"");
    e.fields.push_back(field_invalid(path + ".key", json::value(key), "no such key"));
    return tl::unexpected(std::move(e));
  }
  return value->second;
}

}  // namespace

std::string expand(std::string_view text, const std::map<std::string, std::string>& vars) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 >= text.size()) {
      out += text[i];
      continue;
    }
    if (text[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    if (text[i + 1] == '(') {
      const auto close = text.find(')', i + 2);
      if (close != std::string_view::npos) {
        const std::string name(text.substr(i + 2, close - i - 2));
        if (const auto found = vars.find(name); found != vars.end()) {
          out += found->second;
          i = close;
          continue;
        }
        out.append(text.substr(i, close - i + 1));
        i = close;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

Result<EnvList> resolve_env(const Plan& plan, const PodPlan& pod, const PodIdentity& identity,
                            const EnvList& host) {
  Builder env;
  const auto& c = pod.container;
  for (std::size_t i = 0; i < c.env_from.size(); ++i) {
    const std::string path = c.path + ".envFrom[" + std::to_string(i) + "]";
    const auto* src = c.env_from[i].if_object();
    if (src == nullptr) continue;
    const std::string prefix = str(*src, "prefix");
    const json::value* ref_value = src->if_contains("configMapRef");
    bool secret = false;
    if (ref_value == nullptr) {
      ref_value = src->if_contains("secretRef");
      secret = true;
    }
    const auto* ref = ref_value != nullptr ? ref_value->if_object() : nullptr;
    if (ref == nullptr) {
      return tl::unexpected(Error::invalid({field_required(path, "configMapRef or secretRef")}));
    }
    const std::string name = str(*ref, "name");
    const auto& store = secret ? plan.secrets : plan.config_maps;
    const auto object = store.find(name);
    if (object == store.end()) {
      if (flag(*ref, "optional")) continue;
      const char* kind = secret ? "Secret" : "ConfigMap";
      Error e(ErrorCode::kNotFound, path + (secret ? ".secretRef" : ".configMapRef") +
                                        ".name: " + kind + " \"" + name +
                                        "\" is not among the rendered objects, so it cannot be "
                                        "resolved locally (pass it with -f)");
      e.fields.push_back(field_invalid(path + (secret ? ".secretRef.name" : ".configMapRef.name"),
                                       json::value(name), std::string(kind) + " not found"));
      return tl::unexpected(std::move(e));
    }
    for (const auto& [key, value] : object->second) {
      // The kubelet skips keys that are not valid variable names (and reports an event).
      if (valid_env_name(prefix + key)) env.set(prefix + key, value);
    }
  }

  for (std::size_t i = 0; i < c.env.size(); ++i) {
    const std::string path = c.path + ".env[" + std::to_string(i) + "]";
    const auto* var = c.env[i].if_object();
    if (var == nullptr) continue;
    const std::string name = str(*var, "name");
    if (name.empty()) return tl::unexpected(Error::invalid({field_required(path + ".name", "")}));
    const auto* from_value = var->if_contains("valueFrom");
    if (from_value == nullptr) {
      env.set(name, expand(str(*var, "value"), env.vars()));
      continue;
    }
    const auto* from = from_value->if_object();
    const std::string fpath = path + ".valueFrom";
    Result<std::string> value = std::string();
    if (const auto* fr = from != nullptr ? from->if_contains("fieldRef") : nullptr;
        fr != nullptr && fr->is_object()) {
      value = field_ref(plan, pod, identity, str(fr->get_object(), "fieldPath"),
                        fpath + ".fieldRef.fieldPath");
    } else if (const auto* cm = from != nullptr ? from->if_contains("configMapKeyRef") : nullptr;
               cm != nullptr && cm->is_object()) {
      value = key_ref(plan, cm->get_object(), false, fpath + ".configMapKeyRef");
      if (!value && flag(cm->get_object(), "optional")) continue;
    } else if (const auto* sk = from != nullptr ? from->if_contains("secretKeyRef") : nullptr;
               sk != nullptr && sk->is_object()) {
      value = key_ref(plan, sk->get_object(), true, fpath + ".secretKeyRef");
      if (!value && flag(sk->get_object(), "optional")) continue;
    } else {
      // resourceFieldRef and anything newer: no local meaning (no resource limits here).
      return tl::unexpected(Error(
          ErrorCode::kUnsupported,
          fpath + ": only fieldRef, configMapKeyRef and secretKeyRef can be resolved locally"));
    }
    if (!value) return tl::unexpected(std::move(value.error()));
    env.set(name, std::move(*value));
  }
  // JobSet's Jobs are Indexed, and for Indexed Jobs the Job controller appends
  // JOB_COMPLETION_INDEX (from the completion-index annotation) to every container that does
  // not define it.
  if (env.vars().count("JOB_COMPLETION_INDEX") == 0) {
    env.set("JOB_COMPLETION_INDEX", std::to_string(pod.pod_index));
  }
  auto list = env.take();
  for (const auto& host_var : host) {
    // (A structured binding cannot be captured by a lambda before C++20; clang refuses it.)
    const auto& name = host_var.first;
    const bool set =
        std::any_of(list.begin(), list.end(), [&](const auto& kv) { return kv.first == name; });
    if (!set) list.emplace_back(name, host_var.second);
  }
  return list;
}

std::string rewrite_hostnames(std::string text, const Plan& plan, std::string_view replacement,
                              const std::vector<std::string>& others) {
  std::vector<const std::string*> names;
  for (const auto& pod : plan.pods) {
    names.push_back(&pod.fqdn);
    names.push_back(&pod.hostname);
  }
  for (const auto& name : others) names.push_back(&name);
  // Longest first, so `job-node-0-1` never eats the front of `job-node-0-10`.
  std::stable_sort(names.begin(), names.end(), [](const std::string* a, const std::string* b) {
    return a->size() > b->size();
  });
  const auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.';
  };
  for (const auto* name : names) {
    std::size_t pos = 0;
    while ((pos = text.find(*name, pos)) != std::string::npos) {
      const auto end = pos + name->size();
      const bool whole =
          (pos == 0 || !name_char(text[pos - 1])) &&
          (end == text.size() || !name_char(text[end]) ||
           (text[end] == '.' && (end + 1 == text.size() || !name_char(text[end + 1]))));
      if (whole) {
        text.replace(pos, name->size(), replacement);
        pos += replacement.size();
      } else {
        pos += 1;
      }
    }
  }
  return text;
}

}  // namespace trainer::local::detail
