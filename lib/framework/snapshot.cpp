// SPDX-License-Identifier: Apache-2.0
#include "framework/snapshot.hpp"

#include "framework/runtime_identity.hpp"

#include "trainer/codec.hpp"
#include "trainer/json_path.hpp"
#include "trainer/plugin_support.hpp"

#include <utility>

namespace trainer::detail {
namespace {

namespace json = boost::json;

constexpr const char* kSnapshotSuffix = "-runtime-snapshot";
constexpr const char* kRuntimeDataKey = "runtime";

// Go's %q for the strings in these messages (plain printable text).
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

bool owned_by(const json::object& cm, const std::string& uid) {
  const auto* refs = find_object(cm, {"metadata"}) != nullptr
                         ? find_array(*find_object(cm, {"metadata"}), "ownerReferences")
                         : nullptr;
  if (refs == nullptr) return false;
  for (const auto& ref : *refs) {
    if (!ref.is_object()) continue;
    const auto* controller = ref.get_object().if_contains("controller");
    if (controller == nullptr || !controller->is_bool() || !controller->get_bool()) continue;
    // metav1.GetControllerOf: the first controller reference decides.
    return find_string(ref.get_object(), "uid").value_or("") == uid;
  }
  return false;
}

Result<std::optional<RuntimeSnapshot>> read_snapshot(const TrainJob& job,
                                                     const RenderContext& ctx) {
  const auto found =
      ctx.find("v1", "ConfigMap", train_job_namespace(job), runtime_snapshot_name(job));
  if (!found) return std::optional<RuntimeSnapshot>();
  const json::object empty;
  const json::object& cm = found->is_object() ? found->get_object() : empty;
  if (!owned_by(cm, job.metadata.uid.value_or(""))) {
    return fail(ErrorCode::kInvalid,
                "invalid runtime snapshot: a snapshot configmap exists but is owned by another "
                "object");
  }
  const auto* data = find_object(cm, {"data"});
  const auto text = data != nullptr ? find_string(*data, kRuntimeDataKey) : std::nullopt;
  if (!text) {
    return fail(ErrorCode::kInvalid, std::string("invalid runtime snapshot: snapshot ConfigMap "
                                                 "missing \"") +
                                         kRuntimeDataKey + "\" data key");
  }
  auto docs = parse_documents(*text);
  if (!docs) {
    return fail(
        ErrorCode::kInvalid,
        "invalid runtime snapshot: unable to unmarshal the snapshot: " + docs.error().message);
  }
  json::value doc = docs->empty() ? json::value(json::object()) : (*docs)[0];
  if (!doc.is_object()) {
    return fail(ErrorCode::kInvalid,
                "invalid runtime snapshot: unable to unmarshal the snapshot: not an object");
  }
  const auto& obj = doc.get_object();
  const std::string api_version = find_string(obj, "apiVersion").value_or("");
  const std::string kind = find_string(obj, "kind").value_or("");
  const auto slash = api_version.find('/');
  const std::string group =
      slash == std::string::npos ? std::string() : api_version.substr(0, slash);
  const auto* meta = find_object(obj, {"metadata"});
  const std::string name = meta != nullptr ? find_string(*meta, "name").value_or("") : "";
  const auto& ref = job.spec.runtime_ref;
  const bool kind_mismatch = ref.kind && kind != *ref.kind;
  const bool group_mismatch = ref.api_group && group != *ref.api_group;
  if (kind_mismatch || group_mismatch || name != ref.name) {
    return fail(ErrorCode::kInvalid,
                "invalid runtime snapshot: the snapshot refers to the wrong runtime: expecting a "
                "runtime with name, api group and kind of " +
                    quoted(ref.name) + ", " + quoted(ref.api_group.value_or("<any>")) + ", " +
                    quoted(ref.kind.value_or("<any>")) +
                    " but found runtime with name, api group and kind of " + quoted(name) + ", " +
                    quoted(group) + ", " + quoted(kind));
  }
  if (kind == kClusterTrainingRuntimeKind) {
    auto rt = decode_cluster_training_runtime(doc);
    if (!rt) {
      return fail(
          ErrorCode::kInvalid,
          "invalid runtime snapshot: unable to unmarshal the snapshot: " + rt.error().message);
    }
    return std::optional<RuntimeSnapshot>(RuntimeSnapshot{
        std::move(rt->object.spec), runtime_identity(rt->object, kClusterTrainingRuntimeKind)});
  }
  auto rt = decode_training_runtime(doc);
  if (!rt) {
    return fail(
        ErrorCode::kInvalid,
        "invalid runtime snapshot: unable to unmarshal the snapshot: " + rt.error().message);
  }
  return std::optional<RuntimeSnapshot>(RuntimeSnapshot{
      std::move(rt->object.spec), runtime_identity(rt->object, kTrainingRuntimeKind)});
}

}  // namespace

std::string runtime_snapshot_name(const TrainJob& job) {
  return job.metadata.name.value_or("") + kSnapshotSuffix;
}

json::object runtime_snapshot_config_map(const TrainJob& job, std::string runtime_yaml) {
  json::object cm;
  cm.reserve(4);
  cm["apiVersion"] = "v1";
  cm["kind"] = "ConfigMap";
  json::object meta;
  meta.reserve(3);
  meta["name"] = runtime_snapshot_name(job);
  meta["namespace"] = train_job_namespace(job);
  meta["ownerReferences"] =
      json::array{train_job_owner_reference(job, job.metadata.uid.value_or(""))};
  cm["metadata"] = std::move(meta);
  json::object data;
  data[kRuntimeDataKey] = std::move(runtime_yaml);
  cm["data"] = std::move(data);
  return cm;
}

Result<std::optional<RuntimeSnapshot>> read_runtime_snapshot(const TrainJob& job,
                                                             const RenderContext& ctx) {
  auto r = read_snapshot(job, ctx);
  if (r) return r;
  // Upstream wraps the error differently for the two runtime kinds.
  const bool cluster = job.spec.runtime_ref.kind.value_or(kClusterTrainingRuntimeKind) ==
                       kClusterTrainingRuntimeKind;
  Error e = r.error();
  e.message =
      (cluster ? "getting runtime snapshot: " : "unable to get runtime snapshot: ") + e.message;
  return tl::unexpected(std::move(e));
}

}  // namespace trainer::detail
