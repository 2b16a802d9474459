// SPDX-License-Identifier: Apache-2.0
// `trainerctl apply -f FILE...`: server-side apply, after local admission
// (trainer::cluster::apply).
#include "cluster_flags.hpp"
#include "commands.hpp"
#include "input_files.hpp"
#include "output.hpp"

#include "trainer/cluster.hpp"

#include <cstdio>
#include <utility>

namespace trainerctl {
namespace {

// kubectl's advice after a server-side apply conflict (reference 12.2).
constexpr const char* kConflictHelp =
    "Please review the fields above--they currently have other managers. Here\n"
    "are the ways you can resolve this warning:\n"
    "* If you intend to manage all of these fields, please re-run the apply\n"
    "  command with the `--force-conflicts` flag.\n"
    "* If you do not intend to manage all of the fields, please edit your\n"
    "  manifest to remove references to the fields that should keep their\n"
    "  current managers.\n"
    "* You may co-own fields by updating your manifest to match the existing\n"
    "  value; in this case, you'll become the manager if the other manager(s)\n"
    "  stop managing the field (remove it from their set of managers).\n"
    "\n"
    "See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts\n";

int run_apply(const Parsed& args) {
  auto docs = read_job_documents(args);
  if (!docs) return report_error(docs.error());
  auto client = connect(args);
  if (!client) return report_cluster_error(client.error());

  trainer::cluster::ApplyOptions options;
  options.namespace_ = args.value("namespace");
  options.field_manager = args.value("field-manager");
  options.dry_run = args.value("dry-run") == "server";
  options.force = args.enabled("force-conflicts");
  options.on_warning = print_warning;
  options.strict_fields = args.enabled("strict");
  const char* suffix = options.dry_run ? " (server dry run)" : "";
  options.on_applied = [suffix](const trainer::cluster::AppliedObject& applied) {
    std::printf("%s serverside-applied%s\n", applied.ref.c_str(), suffix);
    std::fflush(stdout);
  };
  auto applied = trainer::cluster::apply(*client, *docs, options);
  if (!applied) {
    report_cluster_error(applied.error());
    if (applied.error().reason == "Conflict" &&
        applied.error().message.rfind("Apply failed", 0) == 0) {
      std::fputs(kConflictHelp, stderr);
    }
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace

const Command& apply_command() {
  static const Command command{
      "apply",
      "server-side apply TrainJobs, runtimes and other objects to a cluster",
      "Admits every TrainJob and runtime locally first, with the same path as 'trainerctl\n"
      "validate' (a TrainJob's runtime that is not among the files is read from the cluster):\n"
      "when any document is rejected, its field errors are printed and nothing is applied.\n"
      "Then every object is server-side applied in file order, one line per object. Training\n"
      "Operator v1 jobs among the files are converted first ('trainerctl convert').",
      {},
      with_cluster_flags(
          {kFilenameFlag,
           {"dry-run",
            '\0',
            "none|server",
            "server: the server admits the objects but stores nothing",
            {"none", "server"},
            "none"},
           {"field-manager", '\0', "NAME", "the field manager of the apply", {}, "trainerctl"},
           {"force-conflicts", '\0', "", "take over fields that other field managers own"},
           kStrictFlag}),
      run_apply};
  return command;
}

}  // namespace trainerctl
