// SPDX-License-Identifier: Apache-2.0
// `trainerctl wait trainjob/NAME --for=condition=TYPE[=STATUS] [--timeout=30s]`, kubectl's
// wait on one TrainJob.
#include "cluster_flags.hpp"
#include "commands.hpp"

#include "trainer/cluster.hpp"

#include <cstdio>
#include <string>

namespace trainerctl {
namespace {

namespace cluster = trainer::cluster;

int usage(const std::string& message) {
  std::fprintf(stderr, "error: %s\nRun 'trainerctl wait --help' for usage.\n", message.c_str());
  return kExitUsage;
}

int run_wait(const Parsed& args) {
  // TYPE/NAME, or TYPE NAME.
  std::string type = args.args()[0];
  std::string name;
  if (const auto slash = type.find('/'); slash != std::string::npos) {
    if (args.args().size() > 1) return usage("there is no need to specify a resource name twice");
    name = type.substr(slash + 1);
    type.resize(slash);
  } else if (args.args().size() > 1) {
    name = args.args()[1];
  }
  if (name.empty()) return usage("a TrainJob name is required: trainjob/NAME");
  const auto kind = cluster::parse_kind(type);
  if (!kind) return report_cluster_error(kind.error());
  if (*kind != cluster::Kind::kTrainJob) return usage("wait supports TrainJobs only");

  const std::string condition_for = args.value("for");
  constexpr std::string_view kPrefix = "condition=";
  if (condition_for.compare(0, kPrefix.size(), kPrefix) != 0 ||
      condition_for.size() == kPrefix.size()) {
    return usage("--for must be condition=TYPE[=STATUS], got \"" + condition_for + "\"");
  }
  std::string condition = condition_for.substr(kPrefix.size());
  std::string status = "True";
  if (const auto eq = condition.find('='); eq != std::string::npos) {
    status = condition.substr(eq + 1);
    condition.resize(eq);
  }
  const auto timeout = parse_duration(args.value("timeout"));
  if (!timeout) return usage("invalid --timeout \"" + args.value("timeout") + "\"");

  auto client = connect(args);
  if (!client) return report_cluster_error(client.error());
  auto resource = cluster::resource_of(*client, *kind);
  if (!resource) return report_cluster_error(resource.error());
  cluster::WaitOptions options;
  options.wait_timeout = *timeout;
  auto met = cluster::wait(*client, namespace_of(args, *client), name, condition, status, options);
  if (!met) return report_cluster_error(met.error());
  std::printf("%s/%s condition met\n", resource->kind_group().c_str(), name.c_str());
  return kExitOk;
}

}  // namespace

const Command& wait_command() {
  static const Command command{
      "wait",
      "wait for a condition of a TrainJob on a cluster",
      "Waits until the TrainJob's condition TYPE (Complete, Failed, Suspended or any type,\n"
      "compared case-insensitively) has STATUS (default True), as kubectl wait does: a\n"
      "condition older than the TrainJob's generation does not count. Exit 1 on timeout\n"
      "(--timeout=0 checks once), and when the TrainJob fails while waiting for another\n"
      "condition.",
      {{"trainjob/NAME", true}, {"NAME", false}},
      with_cluster_flags(
          {{"for",
            '\0',
            "condition=TYPE[=STATUS]",
            "the condition to wait for",
            {},
            {},
            false,
            false,
            true},
           {"timeout", '\0', "DURATION", "how long to wait (30s, 5m, 0: check once)", {}, "30s"}}),
      run_wait};
  return command;
}

}  // namespace trainerctl
