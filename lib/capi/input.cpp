// SPDX-License-Identifier: Apache-2.0
// Inputs of the C ABI: parse limits from trainer_parse_options, object streams in which a `v1`
// List stands for its items, and the header fields of an object.
#include "capi/capi.hpp"
#include "capi/options_version.hpp"
#include "trainer/json_path.hpp"

namespace trainer::capi {

std::optional<std::string> apply_parse_options(const trainer_parse_options* opts,
                                               DecodeOptions& out) {
  if (opts == nullptr) return std::nullopt;
  if (!known_version(opts->version, TRAINER_PARSE_OPTIONS_VERSION)) {
    return "unsupported trainer_parse_options version " + std::to_string(opts->version);
  }
  if (opts->max_document_bytes != 0) out.max_document_bytes = opts->max_document_bytes;
  if (opts->max_depth != 0) out.max_depth = opts->max_depth;
  if (opts->max_documents != 0) out.max_documents = opts->max_documents;
  if (opts->max_nodes != 0) out.max_nodes = opts->max_nodes;
  if (opts->max_aliases != 0) out.max_aliases = opts->max_aliases;
  // Fields of later struct versions: a caller's struct of an earlier version ends before them.
  if (opts->version >= 2 && opts->max_alias_bytes != 0) {
    out.max_alias_bytes = opts->max_alias_bytes;
  }
  return std::nullopt;
}

ObjectHeader object_header(const boost::json::value& object) {
  ObjectHeader out;
  const auto* obj = object.if_object();
  if (obj == nullptr) return out;
  out.kind = find_string(*obj, "kind").value_or("");
  out.api_version = find_string(*obj, "apiVersion").value_or("");
  if (const auto* meta = find_object(*obj, {"metadata"})) {
    out.name = find_string(*meta, "name").value_or("");
    out.namespace_ = find_string(*meta, "namespace").value_or("");
  }
  return out;
}

Result<std::vector<boost::json::value>> read_objects(std::string_view text,
                                                     const DecodeOptions& options) {
  auto docs = parse_documents(text, options);
  if (!docs) return docs;
  std::vector<boost::json::value> objects;
  objects.reserve(docs->size());
  for (auto& doc : *docs) {
    const auto* obj = doc.if_object();
    if (obj != nullptr && find_string(*obj, "apiVersion").value_or("") == "v1" &&
        find_string(*obj, "kind").value_or("") == "List") {
      if (const auto* items = find_array(*obj, "items")) {
        objects.insert(objects.end(), items->begin(), items->end());
      }
      continue;
    }
    objects.push_back(std::move(doc));
  }
  return objects;
}

}  // namespace trainer::capi
