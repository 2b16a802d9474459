// SPDX-License-Identifier: Apache-2.0
#include "kube/client/kubeconfig_merge.hpp"

#include "kube/client/config_files.hpp"
#include "trainer/codec.hpp"

#include <cerrno>
#include <set>

namespace trainer::kube::detail {
namespace {

std::string load_prefix(const std::string& file) {
  return "error loading config file \"" + file + "\": ";
}

const char* json_kind(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::object: return "object";
    case boost::json::kind::array: return "array";
    case boost::json::kind::string: return "string";
    case boost::json::kind::bool_: return "bool";
    case boost::json::kind::null: return "null";
    default: return "number";
  }
}

// One of `clusters`, `users`, `contexts`: a list of {name, <field>}. client-go converts the
// list to a map and refuses a name seen twice; entries already merged from an earlier file win.
Result<void> merge_list(std::map<std::string, KubeconfigEntry>& into,
                        const boost::json::object& doc, const char* list_name, const char* field,
                        const char* go_type, const char* api_type, const std::string& file,
                        const std::string& dir) {
  const auto* value = doc.if_contains(list_name);
  if (value == nullptr || value->is_null()) return {};
  if (!value->is_array()) {
    return fail(ErrorCode::kParse, load_prefix(file) + "json: cannot unmarshal " +
                                       json_kind(*value) + " into Go struct field Config." +
                                       list_name + " of type []v1." + go_type);
  }
  std::set<std::string> seen;
  for (const auto& item : value->get_array()) {
    if (!item.is_object()) {
      return fail(ErrorCode::kParse, load_prefix(file) + "json: cannot unmarshal " +
                                         json_kind(item) + " into Go struct field Config." +
                                         list_name + " of type v1." + go_type);
    }
    const auto& obj = item.get_object();
    std::string name;
    if (const auto* n = obj.if_contains("name"); n != nullptr && n->is_string()) {
      name = std::string(n->get_string());
    }
    if (!seen.insert(name).second) {
      return fail(ErrorCode::kInvalidArgument, load_prefix(file) + "error converting *[]" +
                                                   go_type + " into *map[string]*api." + api_type +
                                                   ": duplicate name \"" + name + "\" in list");
    }
    KubeconfigEntry entry;
    if (const auto* body = obj.if_contains(field); body != nullptr) {
      if (!body->is_object() && !body->is_null()) {
        return fail(ErrorCode::kParse, load_prefix(file) + "json: cannot unmarshal " +
                                           json_kind(*body) + " into Go struct field " + go_type +
                                           "." + list_name + "." + field);
      }
      if (body->is_object()) entry.body = body->get_object();
    }
    entry.file = file;
    entry.dir = dir;
    into.emplace(std::move(name), std::move(entry));  // an earlier file's entry stays
  }
  return {};
}

}  // namespace

Result<void> merge_kubeconfig_text(MergedKubeconfig& merged, const std::string& file,
                                   const std::string& text) {
  auto docs = parse_documents(text);
  if (!docs) {
    return fail(docs.error().code == ErrorCode::kLimit ? ErrorCode::kLimit : ErrorCode::kParse,
                load_prefix(file) + docs.error().message);
  }
  merged.files.push_back(file);
  if (docs->empty()) return {};  // an empty file is an empty config
  if (docs->size() > 1) {
    return fail(ErrorCode::kParse, load_prefix(file) +
                                       "a kubeconfig holds one YAML document, found " +
                                       std::to_string(docs->size()));
  }
  const auto& doc = docs->front();
  if (!doc.is_object()) {
    return fail(ErrorCode::kParse, load_prefix(file) + "json: cannot unmarshal " + json_kind(doc) +
                                       " into Go value of type v1.Config");
  }
  const auto& obj = doc.get_object();
  const std::string dir = folder_of(file);
  // Check the whole file before merging any of it, so a bad file changes nothing.
  MergedKubeconfig local;
  if (auto r = merge_list(local.clusters, obj, "clusters", "cluster", "NamedCluster", "Cluster",
                          file, dir);
      !r) {
    return r;
  }
  if (auto r =
          merge_list(local.users, obj, "users", "user", "NamedAuthInfo", "AuthInfo", file, dir);
      !r) {
    return r;
  }
  if (auto r = merge_list(local.contexts, obj, "contexts", "context", "NamedContext", "Context",
                          file, dir);
      !r) {
    return r;
  }
  for (auto& [name, entry] : local.clusters) merged.clusters.emplace(name, std::move(entry));
  for (auto& [name, entry] : local.users) merged.users.emplace(name, std::move(entry));
  for (auto& [name, entry] : local.contexts) merged.contexts.emplace(name, std::move(entry));
  if (const auto* cc = obj.if_contains("current-context");
      cc != nullptr && cc->is_string() && merged.current_context.empty()) {
    merged.current_context = std::string(cc->get_string());
  }
  return {};
}

Result<MergedKubeconfig> load_kubeconfig_files(const std::vector<std::string>& files,
                                               bool must_exist) {
  MergedKubeconfig merged;
  std::set<std::string> done;
  for (const auto& file : files) {
    if (file.empty() || !done.insert(file).second) continue;  // de-duplicated, as client-go
    if (!path_exists(file)) {
      if (must_exist) {
        return fail(ErrorCode::kIo, "stat " + file + ": " + errno_text(ENOENT));
      }
      continue;
    }
    auto text = read_file(file);
    if (!text) {
      return fail(text.error().code, load_prefix(file) + text.error().message);
    }
    if (auto r = merge_kubeconfig_text(merged, file, *text); !r) return tl::unexpected(r.error());
  }
  return merged;
}

}  // namespace trainer::kube::detail
