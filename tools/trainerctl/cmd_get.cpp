// SPDX-License-Identifier: Apache-2.0
// `trainerctl get TYPE [NAME]`: the server's table of TrainJobs or runtimes (the CRDs' printer
// columns), or the objects as name, JSON or YAML; -w streams the changes.
#include "cluster_flags.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "table_printer.hpp"

#include "trainer/cluster.hpp"
#include "trainer/codec.hpp"

#include <boost/json/array.hpp>

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace trainerctl {
namespace {

namespace json = boost::json;
namespace cluster = trainer::cluster;
namespace kube = trainer::kube;

std::string meta_string(const json::object& object, std::string_view key) {
  const auto* meta = object.if_contains("metadata");
  if (meta == nullptr || !meta->is_object()) return {};
  const auto* value = meta->get_object().if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
}

struct GetRun {
  const Parsed& args;
  kube::Client& client;
  cluster::Kind kind;
  kube::Resource resource;
  std::string ns;
  std::string name;
  std::string output;
  bool all_namespaces = false;

  [[nodiscard]] bool table_output() const { return output.empty() || output == "wide"; }

  void print_no_resources() const {
    if (resource.namespaced && !all_namespaces) {
      std::fprintf(stderr, "No resources found in %s namespace.\n", ns.c_str());
    } else {
      std::fputs("No resources found\n", stderr);
    }
  }

  void print_object(const json::object& object) const {
    if (output == "name") {
      std::printf("%s/%s\n", resource.kind_group().c_str(), meta_string(object, "name").c_str());
    } else if (output == "json") {
      std::printf("%s\n", trainer::encode_json(without_managed_fields(object), true).c_str());
    } else {
      std::fputs(trainer::encode_yaml(without_managed_fields(object)).c_str(), stdout);
    }
  }

  // -o name|json|yaml. Returns the resourceVersion to watch from.
  trainer::Result<std::string> print_objects() const {
    if (!name.empty()) {
      auto object = cluster::get(client, kind, ns, name);
      if (!object) return tl::unexpected(std::move(object.error()));
      print_object(*object);
      return meta_string(*object, "resourceVersion");
    }
    cluster::GetOptions options;
    options.label_selector = args.value("selector");
    options.all_namespaces = all_namespaces;
    auto listed = cluster::list(client, kind, ns, options);
    if (!listed) return tl::unexpected(std::move(listed.error()));
    const auto* items = listed->if_contains("items");
    json::array objects;
    if (items != nullptr && items->is_array()) {
      for (const auto& item : items->get_array()) {
        if (item.is_object()) objects.push_back(without_managed_fields(item.get_object()));
      }
    }
    const std::string version = meta_string(*listed, "resourceVersion");
    if (output == "name") {
      if (objects.empty() && !args.enabled("watch")) print_no_resources();
      for (const auto& object : objects) print_object(object.get_object());
      return version;
    }
    // A list query prints a client-side v1 List, even with one item (reference 12.3).
    json::object list;
    list["apiVersion"] = "v1";
    list["items"] = std::move(objects);
    list["kind"] = "List";
    list["metadata"] = json::object{{"resourceVersion", ""}};
    if (output == "json") {
      std::printf("%s\n", trainer::encode_json(list, true).c_str());
    } else {
      std::fputs(trainer::encode_yaml(list).c_str(), stdout);
    }
    return version;
  }

  // The table. Returns the resourceVersion to watch from.
  trainer::Result<std::string> print_table(std::vector<TextRow>& header,
                                           std::map<std::string, TextRow>& rows) const {
    cluster::GetOptions options;
    options.label_selector = args.value("selector");
    options.all_namespaces = all_namespaces;
    auto table = cluster::table(client, kind, ns, name, options);
    if (!table) return tl::unexpected(std::move(table.error()));
    auto lines = table_lines(*table, output == "wide", all_namespaces);
    header.assign(lines.begin(), lines.begin() + 1);
    remember_rows(*table, lines, rows);
    if (lines.size() == 1) {
      if (!args.enabled("watch")) print_no_resources();
      return table_version(*table);
    }
    std::fputs(tab_write(lines).c_str(), stdout);
    return table_version(*table);
  }

  static std::string table_version(const json::object& table) {
    std::string version = meta_string(table, "resourceVersion");
    if (version.empty()) {
      // One object's table: the version is that of the row's object.
      const auto* rows = table.if_contains("rows");
      if (rows != nullptr && rows->is_array() && !rows->get_array().empty()) {
        const auto* row = rows->get_array()[0].if_object();
        const auto* object = row != nullptr ? row->if_contains("object") : nullptr;
        if (object != nullptr && object->is_object()) {
          version = meta_string(object->get_object(), "resourceVersion");
        }
      }
    }
    return version;
  }

  static void remember_rows(const json::object& table, const std::vector<TextRow>& lines,
                            std::map<std::string, TextRow>& rows) {
    const auto* table_rows = table.if_contains("rows");
    if (table_rows == nullptr || !table_rows->is_array()) return;
    for (std::size_t i = 0; i < table_rows->get_array().size() && i + 1 < lines.size(); ++i) {
      const auto* row = table_rows->get_array()[i].if_object();
      const auto* object = row != nullptr ? row->if_contains("object") : nullptr;
      if (object == nullptr || !object->is_object()) continue;
      rows[meta_string(object->get_object(), "namespace") + "/" +
           meta_string(object->get_object(), "name")] = lines[i + 1];
    }
  }

  struct WatchState {
    std::vector<TextRow> header;
    std::map<std::string, TextRow> rows;  // by namespace/name: the last row of each object
    bool header_printed = false;
  };

  // One watch event as a table line: the object's row as the server prints it now (a deleted
  // object's last row), aligned with every row seen so far; the header once.
  void print_event_row(const kube::WatchEvent& event, WatchState& state) const {
    const std::string object_ns = meta_string(event.object, "namespace");
    const std::string object_name = meta_string(event.object, "name");
    const std::string key = object_ns + "/" + object_name;
    if (event.type != kube::WatchEventType::kDeleted) {
      if (auto table = cluster::table(client, kind, object_ns, object_name)) {
        auto lines = table_lines(*table, output == "wide", all_namespaces);
        if (state.header.empty()) state.header.assign(lines.begin(), lines.begin() + 1);
        remember_rows(*table, lines, state.rows);
      }
    }
    const auto row = state.rows.find(key);
    if (row == state.rows.end()) return;
    std::vector<TextRow> lines = state.header;
    for (const auto& seen : state.rows) lines.push_back(seen.second);
    lines.push_back(row->second);
    const std::string text = tab_write(lines);
    if (!state.header_printed) std::fputs(text.substr(0, text.find('\n') + 1).c_str(), stdout);
    state.header_printed = true;
    std::fputs(text.substr(text.rfind('\n', text.size() - 2) + 1).c_str(), stdout);
    if (event.type == kube::WatchEventType::kDeleted) state.rows.erase(row);
  }

  // -w: one line (or object) per change, until the watch fails or the process is stopped.
  int watch(const std::string& version, WatchState state) const {
    kube::WatchOptions options;
    options.label_selector = args.value("selector");
    if (!name.empty()) options.field_selector = "metadata.name=" + name;
    options.all_namespaces = all_namespaces;
    options.resource_version = version;
    options.bookmarks = false;
    state.header_printed = !state.rows.empty();
    auto watched = client.watch(resource, resource.namespaced ? ns : std::string(), options,
                                [&](const kube::WatchEvent& event) {
                                  if (event.type == kube::WatchEventType::kBookmark) return true;
                                  if (table_output()) {
                                    print_event_row(event, state);
                                  } else {
                                    if (output == "yaml") std::fputs("---\n", stdout);
                                    print_object(event.object);
                                  }
                                  std::fflush(stdout);
                                  return true;
                                });
    if (!watched) return report_cluster_error(watched.error());
    return kExitOk;
  }
};

int run_get(const Parsed& args) {
  auto kind = cluster::parse_kind(args.args()[0]);
  if (!kind) return report_cluster_error(kind.error());
  const std::string name = args.args().size() > 1 ? args.args()[1] : std::string();
  const bool all_namespaces = args.enabled("all-namespaces");
  if (!name.empty() && all_namespaces) {
    std::fputs("error: a resource cannot be retrieved by name across all namespaces\n", stderr);
    return kExitFailed;
  }
  auto client = connect(args);
  if (!client) return report_cluster_error(client.error());
  auto resource = cluster::resource_of(*client, *kind);
  if (!resource) return report_cluster_error(resource.error());
  GetRun run{args, *client, *kind, *resource, namespace_of(args, *client), name,
             args.value("output"),
             // kubectl: a cluster-scoped kind has no NAMESPACE column, even with -A.
             all_namespaces && resource->namespaced};
  GetRun::WatchState state;
  auto version =
      run.table_output() ? run.print_table(state.header, state.rows) : run.print_objects();
  if (!version) return report_cluster_error(version.error());
  std::fflush(stdout);
  if (!args.enabled("watch")) return kExitOk;
  return run.watch(*version, std::move(state));
}

}  // namespace

const Command& get_command() {
  static const Command command{
      "get",
      "list or show TrainJobs and runtimes on a cluster",
      "TYPE: trainjobs, trainingruntimes or clustertrainingruntimes (singular and\n"
      "<type>.trainer.kubeflow.org too). The table has the CRD's printer columns, computed by\n"
      "the server. -o json|yaml prints one object as it is (without managedFields) and a list\n"
      "query as a v1 List; -o name prints <kind>.<group>/<name> lines. -w then prints a line\n"
      "for every change until interrupted.",
      {{"TYPE", true}, {"NAME", false}},
      with_cluster_flags(
          {{"output",
            'o',
            "wide|yaml|json|name",
            "the output format",
            {"wide", "yaml", "json", "name"}},
           {"selector", 'l', "SELECTOR", "label selector (app=x,tier!=y)"},
           {"all-namespaces", 'A', "", "list across every namespace (adds a NAMESPACE column)"},
           {"watch", 'w', "", "after the listing, print every change"}}),
      run_get};
  return command;
}

}  // namespace trainerctl
