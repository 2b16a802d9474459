// SPDX-License-Identifier: Apache-2.0
// `trainerctl wait trainjob/NAME... --for=condition=TYPE[=STATUS]|delete [--timeout=30s]`,
// kubectl's wait on TrainJobs (a condition) or on objects of any kind (their deletion).
#include "cluster_flags.hpp"
#include "commands.hpp"
#include "resource_args.hpp"

#include "trainer/cluster.hpp"

#include <cstdio>
#include <string>

namespace trainerctl {
namespace {

namespace cluster = trainer::cluster;

int run_wait(const Parsed& args) {
  auto targets = parse_resource_args(args.args(), "wait");
  if (!targets) return usage_error("wait", targets.error().message);
  for (const auto& target : *targets) {
    if (target.name.empty())
      return usage_error("wait", "resource(s) were provided, but no name was specified");
  }
  const std::string condition_for = args.value("for");
  const bool for_delete = condition_for == "delete";
  constexpr std::string_view kPrefix = "condition=";
  if (!for_delete && (condition_for.compare(0, kPrefix.size(), kPrefix) != 0 ||
                      condition_for.size() == kPrefix.size())) {
    return usage_error(
        "wait", "--for must be delete or condition=TYPE[=STATUS], got \"" + condition_for + "\"");
  }
  std::string condition = for_delete ? std::string() : condition_for.substr(kPrefix.size());
  std::string status = "True";
  if (const auto eq = condition.find('='); eq != std::string::npos) {
    status = condition.substr(eq + 1);
    condition.resize(eq);
  }
  const auto timeout = parse_duration(args.value("timeout"));
  if (!timeout) return usage_error("wait", "invalid --timeout \"" + args.value("timeout") + "\"");

  auto client = connect(args);
  if (!client) return report_cluster_error(client.error());
  auto resources = resolve(*client, *targets);
  if (!resources) return report_cluster_error(resources.error());
  if (!for_delete) {
    for (const auto& resource : *resources) {
      if (!is_trainjob(resource)) {
        return usage_error("wait", "--for=condition waits for TrainJobs; " + resource.resource +
                                       " can be waited for with --for=delete");
      }
    }
  }
  const std::string ns = namespace_of(args, *client);
  cluster::WaitOptions options;
  options.wait_timeout = *timeout;
  int failures = 0;
  // One object after the other, each with the whole timeout (kubectl).
  for (std::size_t i = 0; i < targets->size(); ++i) {
    const auto& resource = (*resources)[i];
    const std::string& name = (*targets)[i].name;
    bool met = true;
    if (for_delete) {
      auto deleted = cluster::wait_deleted(*client, resource, ns, name, options);
      if (!deleted) {
        report_cluster_error(deleted.error());
        ++failures;
        continue;
      }
      met = *deleted;  // an object that was not there is not reported (kubectl)
    } else if (auto found = cluster::wait(*client, ns, name, condition, status, options); !found) {
      report_cluster_error(found.error());
      ++failures;
      continue;
    }
    if (met) std::printf("%s/%s condition met\n", resource.kind_group().c_str(), name.c_str());
    std::fflush(stdout);
  }
  return failures == 0 ? kExitOk : kExitFailed;
}

}  // namespace

const Command& wait_command() {
  static const Command command{
      "wait",
      "wait for a condition of TrainJobs, or for objects to be deleted, on a cluster",
      "--for=condition=TYPE[=STATUS]: until the TrainJob's condition TYPE (Complete, Failed,\n"
      "Suspended or any type, compared case-insensitively) has STATUS (default True), as kubectl\n"
      "wait does: a condition older than the TrainJob's generation does not count; a TrainJob\n"
      "that fails while waiting for another condition ends the wait (exit 1).\n"
      "--for=delete: until the objects (of any kind) are gone; one already gone is not waited\n"
      "for. Each object gets the whole --timeout (exit 1 when it passes; 0 checks once).",
      {{"TYPE[/NAME]", true, false, {}, kResourceTypeHints}, {"NAME", false, true}},
      with_cluster_flags(
          {{"for",
            '\0',
            "delete|condition=TYPE[=STATUS]",
            "what to wait for",
            {"delete", "condition="},
            {},
            false,
            false,
            true},
           {"timeout", '\0', "DURATION", "how long to wait (30s, 5m, 0: check once)", {}, "30s"}}),
      run_wait};
  return command;
}

}  // namespace trainerctl
