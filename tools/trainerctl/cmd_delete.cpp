// SPDX-License-Identifier: Apache-2.0
// `trainerctl delete TYPE NAME...`, `delete TYPE/NAME...`, `delete TYPE --all|-l SELECTOR` and
// `delete -f FILE...`.
#include "cluster_flags.hpp"
#include "commands.hpp"

#include "input_files.hpp"
#include "output.hpp"
#include "resource_args.hpp"
#include "trainer/json_path.hpp"

#include "trainer/cluster.hpp"

#include <boost/json/array.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace trainerctl {
namespace {

namespace json = boost::json;
namespace cluster = trainer::cluster;
namespace kube = trainer::kube;

struct Deleter {
  kube::Client& client;
  kube::DeleteOptions options;
  const char* suffix;
  int failures = 0;

  void remove(const kube::Resource& resource, const std::string& ns, const std::string& name) {
    auto removed = client.remove(resource, resource.namespaced ? ns : std::string(), name, options);
    if (!removed) {
      report_cluster_error(removed.error());
      ++failures;
      return;
    }
    if (resource.namespaced) {
      std::printf("%s \"%s\" deleted from %s namespace%s\n", resource.kind_group().c_str(),
                  name.c_str(), ns.c_str(), suffix);
    } else {
      std::printf("%s \"%s\" deleted%s\n", resource.kind_group().c_str(), name.c_str(), suffix);
    }
    std::fflush(stdout);
  }
};

kube::Propagation propagation(const std::string& cascade) {
  if (cascade == "foreground") return kube::Propagation::kForeground;
  if (cascade == "orphan") return kube::Propagation::kOrphan;
  return kube::Propagation::kBackground;
}

// TYPE NAME..., TYPE/NAME..., TYPE --all, TYPE -l SELECTOR.
int delete_named(const Parsed& args, kube::Client& client, Deleter& deleter,
                 const std::vector<ResourceTarget>& targets) {
  auto resources = resolve(client, targets);
  if (!resources) return report_cluster_error(resources.error());
  const std::string ns = namespace_of(args, client);
  bool listed_any = false;
  std::size_t found = 0;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const auto& resource = (*resources)[i];
    if (!targets[i].name.empty()) {
      deleter.remove(resource, ns, targets[i].name);
      continue;
    }
    // --all or -l: every object of the namespace that matches, each deleted by name (kubectl).
    listed_any = true;
    cluster::GetOptions options;
    options.label_selector = args.value("selector");
    auto listed = cluster::list(client, resource, ns, options);
    if (!listed) {
      report_cluster_error(listed.error());
      ++deleter.failures;
      continue;
    }
    const auto* items = trainer::find_array(*listed, "items");
    if (items == nullptr) continue;
    for (const auto& item : *items) {
      const auto* meta =
          item.is_object() ? trainer::find_object(item.get_object(), "metadata") : nullptr;
      if (meta == nullptr) continue;
      ++found;
      deleter.remove(resource, ns, trainer::string_at(*meta, "name"));
    }
  }
  if (listed_any && found == 0 && deleter.failures == 0) std::puts("No resources found");
  return deleter.failures == 0 ? kExitOk : kExitFailed;
}

int run_delete(const Parsed& args) {
  const auto files = args.values("filename");
  const auto& positional = args.args();
  const bool all = args.enabled("all");
  const bool selector = args.given("selector");
  if (!files.empty() && !positional.empty()) {
    return usage_error(
        "delete", "when files are given (-f), you may not name resources as arguments as well");
  }
  if (files.empty() && positional.empty()) {
    return usage_error("delete",
                       "give TYPE NAME..., TYPE/NAME..., TYPE --all, TYPE -l SELECTOR or -f FILE");
  }
  if (all && selector)
    return usage_error("delete", "setting 'all' parameter but found a non empty selector.");
  auto targets = parse_resource_args(positional, "delete", all || selector);
  if (!targets) return usage_error("delete", targets.error().message);
  for (const auto& target : *targets) {
    if (target.name.empty() && !all && !selector) {
      return usage_error("delete", "resource(s) were provided, but no name was specified");
    }
  }
  std::vector<json::value> docs;
  if (!files.empty()) {
    auto read = read_documents(files);
    if (!read) return report_error(read.error());
    docs = std::move(*read);
  }
  auto client = connect(args);
  if (!client) return report_cluster_error(client.error());
  const std::string ns = namespace_of(args, *client);
  Deleter deleter{*client, {}, args.value("dry-run") == "server" ? " (server dry run)" : ""};
  deleter.options.propagation = propagation(args.value("cascade"));
  deleter.options.dry_run = args.value("dry-run") == "server";

  if (!positional.empty()) return delete_named(args, *client, deleter, *targets);
  // Every object of the files (a v1 List by its items), each in its own namespace or -n's; with
  // an explicit -n, an object of another namespace is refused before anything is deleted.
  auto objects = cluster::objects_of(docs);
  if (!objects) return report_cluster_error(objects.error());
  const std::string explicit_ns = args.value("namespace");
  for (const auto& object : *objects) {
    if (auto checked = cluster::check_namespace(object, explicit_ns); !checked) {
      return report_cluster_error(checked.error());
    }
  }
  for (const auto& object : *objects) {
    auto resource = client->resource_for(trainer::string_at(object, "apiVersion"),
                                         trainer::string_at(object, "kind"));
    if (!resource) {
      report_cluster_error(resource.error());
      ++deleter.failures;
      continue;
    }
    std::string name, object_ns;
    if (const auto* meta = object.if_contains("metadata"); meta != nullptr && meta->is_object()) {
      name = trainer::string_at(meta->get_object(), "name");
      object_ns = trainer::string_at(meta->get_object(), "namespace");
    }
    deleter.remove(*resource, object_ns.empty() ? ns : object_ns, name);
  }
  return deleter.failures == 0 ? kExitOk : kExitFailed;
}

}  // namespace

const Command& delete_command() {
  static const Command command{
      "delete",
      "delete TrainJobs, runtimes or other objects (or those of files) from a cluster",
      "TYPE NAME... or TYPE/NAME... deletes those objects (any kind the server serves: trainjob,\n"
      "trainingruntime, jobset, ...); TYPE --all every object of TYPE in the namespace, TYPE -l\n"
      "SELECTOR those that match; -f every object of the files (each in its own namespace, else\n"
      "-n's). An object that cannot be deleted is reported and the others are still deleted\n"
      "(exit 1).",
      {{"TYPE[/NAME]", false, false, {}, kResourceTypeHints}, {"NAME", false, true}},
      with_cluster_flags({{"filename",
                           'f',
                           "FILE",
                           "a file with the objects to delete; - is stdin",
                           {},
                           {},
                           false,
                           true},
                          {"all", '\0', "", "every object of TYPE in the namespace"},
                          {"selector", 'l', "SELECTOR", "the objects of TYPE that match (app=x)"},
                          {"cascade",
                           '\0',
                           "background|foreground|orphan",
                           "what happens to the dependents (the JobSet)",
                           {"background", "foreground", "orphan"},
                           "background"},
                          {"dry-run",
                           '\0',
                           "none|server",
                           "server: the server checks the deletion but deletes nothing",
                           {"none", "server"},
                           "none"}}),
      run_delete};
  return command;
}

}  // namespace trainerctl
