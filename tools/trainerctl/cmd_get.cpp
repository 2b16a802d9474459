// SPDX-License-Identifier: Apache-2.0
// `trainerctl get TYPE[,TYPE...] [NAME...]`, `get TYPE/NAME...`: the server's tables of any kinds
// discovery knows (TrainJobs, runtimes, the JobSets and Pods a TrainJob owns; the CRDs' printer
// columns), or the objects as name, JSON, YAML, a JSONPath template or custom columns; -w
// streams the changes of one type.
#include "cluster_flags.hpp"
#include "commands.hpp"
#include "object_output.hpp"
#include "output.hpp"
#include "resource_args.hpp"
#include "table_printer.hpp"

#include "trainer/cluster.hpp"
#include "trainer/codec.hpp"
#include "trainer/json_path.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
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
  const auto* meta = trainer::find_object(object, "metadata");
  return meta != nullptr ? trainer::string_at(*meta, key) : std::string();
}

bool same_resource(const kube::Resource& a, const kube::Resource& b) {
  return a.group == b.group && a.resource == b.resource;
}

// One kind's rows, printed as one table (consecutive targets of a kind share it, as kubectl's).
struct Section {
  kube::Resource resource;
  TextRow header;
  std::vector<TextRow> rows;
};

struct GetRun {
  const Parsed& args;
  kube::Client& client;
  std::string ns;
  ObjectOutput output;
  bool all_namespaces = false;
  bool headers = true;
  std::vector<trainer::Error> errors;  // printed after what could be read, as kubectl does
  std::vector<ResourceTarget> targets;
  std::vector<kube::Resource> resources;  // of each target
  bool printed_any = false;               // a header or a row is on screen

  [[nodiscard]] bool namespace_column(const kube::Resource& resource) const {
    // kubectl: a cluster-scoped kind has no NAMESPACE column, even with -A.
    return all_namespaces && resource.namespaced;
  }

  [[nodiscard]] cluster::GetOptions get_options() const {
    cluster::GetOptions options;
    options.label_selector = args.value("selector");
    options.all_namespaces = all_namespaces;
    return options;
  }

  void print_no_resources() const {
    const bool namespaced =
        std::any_of(resources.begin(), resources.end(), [](const auto& r) { return r.namespaced; });
    if (namespaced && !all_namespaces) {
      std::fprintf(stderr, "No resources found in %s namespace.\n", ns.c_str());
    } else {
      std::fputs("No resources found\n", stderr);
    }
  }

  // The server's tables. Returns the resourceVersion of the last one (the watch starts there).
  std::string print_tables(bool watching, std::map<std::string, TextRow>& seen_rows,
                           TextRow& header) {
    std::vector<Section> sections;
    std::string version;
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const auto& resource = resources[i];
      auto table = cluster::table(client, resource, ns, targets[i].name, get_options());
      if (!table) {
        errors.push_back(std::move(table.error()));
        continue;
      }
      version = table_version(*table);
      auto lines = table_lines(*table, output.format() == ObjectOutput::Format::kWide,
                               namespace_column(resource));
      if (watching) remember_rows(*table, lines, seen_rows);
      if (sections.empty() || !same_resource(sections.back().resource, resource)) {
        sections.push_back({resource, lines[0], {}});
      }
      sections.back().rows.insert(sections.back().rows.end(), lines.begin() + 1, lines.end());
    }
    if (!sections.empty()) header = sections[0].header;
    // Several kinds on screen: each name says its kind (kubectl's printWithKind).
    std::size_t kinds = 0;
    for (const auto& section : sections) kinds += section.rows.empty() ? 0U : 1U;
    bool printed = false;
    for (const auto& section : sections) {
      if (section.rows.empty()) continue;
      std::vector<TextRow> lines;
      if (headers) lines.push_back(section.header);
      const auto name_column = table_name_column(section.header);
      for (auto row : section.rows) {
        if (kinds > 1 && name_column < row.size()) {
          row[name_column] = section.resource.kind_group() + "/" + row[name_column];
        }
        lines.push_back(std::move(row));
      }
      // A blank line between the kinds' tables, unless headers are off (kubectl's spacing).
      if (printed && headers) std::fputs("\n", stdout);
      std::fputs(tab_write(lines).c_str(), stdout);
      printed = true;
    }
    printed_any = printed;
    if (!printed && errors.empty() && !watching) print_no_resources();
    return version;
  }

  // -o name|json|yaml|jsonpath|custom-columns. Returns the resourceVersion to watch from.
  std::string print_objects(bool watching) {
    std::vector<json::object> objects;
    std::string version;
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const auto& resource = resources[i];
      const auto object_ns = resource.namespaced ? ns : std::string();
      if (!targets[i].name.empty()) {
        auto object = client.get(resource, object_ns, targets[i].name);
        if (!object) {
          errors.push_back(std::move(object.error()));
          continue;
        }
        version = meta_string(*object, "resourceVersion");
        objects.push_back(std::move(*object));
        continue;
      }
      auto listed = cluster::list(client, resource, ns, get_options());
      if (!listed) {
        errors.push_back(std::move(listed.error()));
        continue;
      }
      version = meta_string(*listed, "resourceVersion");
      if (auto* items = listed->if_contains("items"); items != nullptr && items->is_array()) {
        for (auto& item : items->get_array()) {
          if (!item.is_object()) continue;
          // A list's items of built-in kinds come without their kind, which kubectl adds back.
          auto& object = item.get_object();
          if (!object.contains("kind")) object["kind"] = resource.kind;
          if (!object.contains("apiVersion")) object["apiVersion"] = resource.api_version();
          objects.push_back(std::move(object));
        }
      }
    }
    if (objects.empty() && output.format() == ObjectOutput::Format::kName && errors.empty() &&
        !watching) {
      print_no_resources();
      return version;
    }
    if (objects.empty() && output.format() == ObjectOutput::Format::kCustomColumns && watching) {
      return version;
    }
    auto text = output.print(objects, names_one_object(targets), headers);
    if (!text) {
      errors.emplace_back(trainer::ErrorCode::kInvalidArgument, text.error());
      return version;
    }
    std::fputs(text->c_str(), stdout);
    printed_any = !text->empty();
    return version;
  }

  static std::size_t table_name_column(const TextRow& header) {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == "NAME") return i;
    }
    return header.size();
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
    TextRow header;
    std::map<std::string, TextRow> rows;  // by namespace/name: the last row of each object
    bool header_printed = false;
  };

  // One watch event as a table line: the object's row as the server prints it now (a deleted
  // object's last row), aligned with every row seen so far; the header once.
  void print_event_row(const kube::Resource& resource, const kube::WatchEvent& event,
                       WatchState& state) const {
    const std::string object_ns = meta_string(event.object, "namespace");
    const std::string object_name = meta_string(event.object, "name");
    const std::string key = object_ns + "/" + object_name;
    if (event.type != kube::WatchEventType::kDeleted) {
      if (auto table = cluster::table(client, resource, object_ns, object_name)) {
        auto lines = table_lines(*table, output.format() == ObjectOutput::Format::kWide,
                                 namespace_column(resource));
        if (state.header.empty()) state.header = lines[0];
        remember_rows(*table, lines, state.rows);
      }
    }
    const auto row = state.rows.find(key);
    if (row == state.rows.end()) return;
    std::vector<TextRow> lines{state.header};
    for (const auto& seen : state.rows) lines.push_back(seen.second);
    lines.push_back(row->second);
    const std::string text = tab_write(lines);
    if (!state.header_printed && headers) {
      std::fputs(text.substr(0, text.find('\n') + 1).c_str(), stdout);
    }
    state.header_printed = true;
    std::fputs(text.substr(text.rfind('\n', text.size() - 2) + 1).c_str(), stdout);
    if (event.type == kube::WatchEventType::kDeleted) state.rows.erase(row);
  }

  void print_event_object(const kube::WatchEvent& event, WatchState& state) const {
    const auto format = output.format();
    const bool columns = format == ObjectOutput::Format::kCustomColumns;
    if (format == ObjectOutput::Format::kYaml) std::fputs("---\n", stdout);
    // Custom columns: each row aligned under the header, which is printed once.
    auto text = output.print({event.object}, true, columns);
    if (!text) {
      std::fprintf(stderr, "error: %s\n", text.error().c_str());
      return;
    }
    if (columns && (state.header_printed || !headers)) text->erase(0, text->find('\n') + 1);
    state.header_printed = true;
    std::fputs(text->c_str(), stdout);
  }

  // -w: one line (or object) per change, until the watch fails or the process is stopped.
  int watch(const ResourceTarget& target, const kube::Resource& resource,
            const std::string& version, WatchState state) const {
    kube::WatchOptions options;
    options.label_selector = args.value("selector");
    if (!target.name.empty()) options.field_selector = "metadata.name=" + target.name;
    options.all_namespaces = all_namespaces;
    options.resource_version = version;
    options.bookmarks = false;
    state.header_printed = printed_any;
    auto watched = client.watch(resource, resource.namespaced ? ns : std::string(), options,
                                [&](const kube::WatchEvent& event) {
                                  if (event.type == kube::WatchEventType::kBookmark) return true;
                                  if (output.server_table()) {
                                    print_event_row(resource, event, state);
                                  } else {
                                    print_event_object(event, state);
                                  }
                                  std::fflush(stdout);
                                  return true;
                                });
    if (!watched) return report_cluster_error(watched.error());
    return kExitOk;
  }
};

int run_get(const Parsed& args) {
  auto output = ObjectOutput::parse(args.value("output"));
  if (!output) return usage_error("get", output.error());
  auto targets = parse_resource_args(args.args(), "get", args.given("selector"));
  if (!targets) return usage_error("get", targets.error().message);
  const bool all_namespaces = args.enabled("all-namespaces");
  if (all_namespaces && std::any_of(targets->begin(), targets->end(),
                                    [](const auto& t) { return !t.name.empty(); })) {
    std::fputs("error: a resource cannot be retrieved by name across all namespaces\n", stderr);
    return kExitFailed;
  }
  const bool watching = args.enabled("watch");
  if (watching && targets->size() != 1) {
    std::fprintf(stderr,
                 "error: watch is only supported on individual resources and resource "
                 "collections, but %zu resources were found\n",
                 targets->size());
    return kExitFailed;
  }
  auto client = connect(args);
  if (!client) return report_cluster_error(client.error());
  auto resources = resolve(*client, *targets);
  if (!resources) return report_cluster_error(resources.error());
  GetRun run{args,
             *client,
             namespace_of(args, *client),
             std::move(*output),
             all_namespaces,
             !args.enabled("no-headers"),
             {},
             *targets,
             *resources};
  GetRun::WatchState state;
  const std::string version = run.output.server_table()
                                  ? run.print_tables(watching, state.rows, state.header)
                                  : run.print_objects(watching);
  std::fflush(stdout);
  for (const auto& error : run.errors) report_cluster_error(error);
  if (!run.errors.empty()) return kExitFailed;
  if (!watching) return kExitOk;
  return run.watch(targets->front(), resources->front(), version, std::move(state));
}

}  // namespace

const Command& get_command() {
  static const Command command{
      "get",
      "list or show TrainJobs, runtimes and the objects they own on a cluster",
      "TYPE: any kind the server serves, as kubectl names it: trainjobs, trainingruntimes,\n"
      "clustertrainingruntimes, optimizationjobs, jobsets, pods, ... (singular, Kind,\n"
      "<type>.<group>); several with commas (trainjobs,jobsets), each object as TYPE/NAME.\n"
      "The table has the kinds' printer columns, computed by the server. -o json|yaml prints\n"
      "one object as it is (without managedFields) and several as a v1 List; -o name prints\n"
      "<kind>.<group>/<name> lines; -o jsonpath=TEMPLATE and -o custom-columns=HEADER:PATH,...\n"
      "as kubectl's ({.metadata.name}, {range .items[*]}...{end}, [?(@.type==\"Ready\")]).\n"
      "-w then prints a line for every change of one TYPE until interrupted.",
      {{"TYPE[/NAME]", true, false, {}, kResourceTypeHints}, {"NAME", false, true}},
      with_cluster_flags(
          {{"output",
            'o',
            "FORMAT",
            "wide, yaml, json, name, jsonpath=TEMPLATE or custom-columns=SPEC",
            {"wide", "yaml", "json", "name", "jsonpath=", "custom-columns="}},
           {"selector", 'l', "SELECTOR", "label selector (app=x,tier!=y)"},
           {"all-namespaces", 'A', "", "list across every namespace (adds a NAMESPACE column)"},
           {"no-headers", '\0', "", "leave out the header line of tables and custom columns"},
           {"watch", 'w', "", "after the listing, print every change"}}),
      run_get};
  return command;
}

}  // namespace trainerctl
