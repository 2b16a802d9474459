// SPDX-License-Identifier: Apache-2.0
// `events`: the core/v1 Events about some objects, found and ordered as `kubectl describe` finds
// and orders them (kubectl's SearchEvents and SortableEvents).
#include "api/time_text.hpp"
#include "cluster/cluster_internal.hpp"
#include "trainer/json_path.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <chrono>
#include <utility>

namespace trainer::cluster {
namespace {

namespace json = boost::json;
using Time = std::chrono::system_clock::time_point;

Time time_at(const json::object& object, std::string_view key) {
  const auto text = find_string(object, key);
  if (!text) return {};
  return trainer::detail::parse_rfc3339(*text).value_or(Time{});
}

// kubectl's order: the series' last observation, else lastTimestamp, else eventTime.
Time event_time(const json::object& event) {
  if (const auto* series = find_object(event, "series")) {
    return time_at(*series, "lastObservedTime");
  }
  if (const Time last = time_at(event, "lastTimestamp"); last != Time{}) return last;
  return time_at(event, "eventTime");
}

}  // namespace

Result<std::vector<boost::json::object>> events(kube::Client& client,
                                                const std::vector<InvolvedObject>& objects,
                                                const kube::CallOptions& options) {
  auto resource = client.resource_for("v1", "Event", options);
  if (!resource) return tl::unexpected(std::move(resource.error()));
  std::vector<json::object> out;
  for (const auto& object : objects) {
    // fields.Set's text: keys sorted. Names, kinds and UIDs hold no `,`, `=` or `\` to escape.
    kube::ListOptions list;
    static_cast<kube::CallOptions&>(list) = options;
    list.field_selector = "involvedObject.kind=" + object.kind +
                          ",involvedObject.name=" + object.name +
                          ",involvedObject.namespace=" + object.namespace_;
    if (!object.uid.empty()) list.field_selector += ",involvedObject.uid=" + object.uid;
    auto listed = client.list(*resource, object.namespace_, list);
    if (!listed) return tl::unexpected(std::move(listed.error()));
    if (auto* items = listed->if_contains("items"); items != nullptr && items->is_array()) {
      for (auto& item : items->get_array()) {
        if (item.is_object()) out.push_back(std::move(item.get_object()));
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const json::object& a, const json::object& b) {
    return event_time(a) < event_time(b);
  });
  return out;
}

}  // namespace trainer::cluster
