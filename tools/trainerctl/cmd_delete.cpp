// SPDX-License-Identifier: Apache-2.0
// `trainerctl delete TYPE NAME` and `delete -f FILE...`.
#include "cluster_flags.hpp"
#include "commands.hpp"

#include "input_files.hpp"
#include "output.hpp"
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

int run_delete(const Parsed& args) {
  const auto files = args.values("filename");
  const auto& positional = args.args();
  if (files.empty() == positional.empty() || (!positional.empty() && positional.size() != 2)) {
    std::fputs(
        "error: give either TYPE NAME or -f FILE\nRun 'trainerctl delete --help' for "
        "usage.\n",
        stderr);
    return kExitUsage;
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

  if (!positional.empty()) {
    const auto kind = cluster::parse_kind(positional[0]);
    if (!kind) return report_cluster_error(kind.error());
    auto resource = cluster::resource_of(*client, *kind);
    if (!resource) return report_cluster_error(resource.error());
    deleter.remove(*resource, ns, positional[1]);
    return deleter.failures == 0 ? kExitOk : kExitFailed;
  }
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
      "delete TrainJobs and runtimes (or the objects of files) from a cluster",
      "TYPE NAME deletes one TrainJob, TrainingRuntime or ClusterTrainingRuntime; -f deletes\n"
      "every object of the files (each in its own namespace, else -n's). An object that cannot\n"
      "be deleted is reported and the others are still deleted (exit 1).",
      {{"TYPE", false}, {"NAME", false}},
      with_cluster_flags({{"filename",
                           'f',
                           "FILE",
                           "a file with the objects to delete; - is stdin",
                           {},
                           {},
                           false,
                           true},
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
