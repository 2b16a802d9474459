// SPDX-License-Identifier: Apache-2.0
// How kubectl reads the objects of files: a `v1` `List` stands for its items, and with an
// explicit `-n` an object that names another namespace is refused.
#include "trainer/cluster.hpp"
#include "trainer/json_path.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace trainer::cluster {

namespace json = boost::json;
using trainer::find_string;

Result<std::vector<json::object>> objects_of(const std::vector<json::value>& documents) {
  std::vector<json::object> out;
  for (const auto& doc : documents) {
    const auto* object = doc.if_object();
    if (object == nullptr) return fail(ErrorCode::kInvalid, "a document is not an object");
    if (find_string(*object, "apiVersion").value_or("") == "v1" &&
        find_string(*object, "kind").value_or("") == "List") {
      const auto* items = trainer::find_array(*object, "items");
      if (items == nullptr) continue;
      for (const auto& item : *items) {
        if (!item.is_object()) return fail(ErrorCode::kInvalid, "a List item is not an object");
        out.push_back(item.get_object());
      }
      continue;
    }
    out.push_back(*object);
  }
  return out;
}

Result<void> check_namespace(const json::object& object, std::string_view explicit_ns) {
  const std::string object_ns = trainer::object_namespace(object);
  if (explicit_ns.empty() || object_ns.empty() || object_ns == explicit_ns) return {};
  return fail(ErrorCode::kInvalidArgument,
              "the namespace from the provided object \"" + object_ns +
                  "\" does not match the namespace \"" + std::string(explicit_ns) +
                  "\". You must pass '--namespace=" + object_ns + "' to perform this operation.");
}

}  // namespace trainer::cluster
