// SPDX-License-Identifier: Apache-2.0
#include "commands.hpp"
#include "input_files.hpp"
#include "output.hpp"
#include "plugin_flags.hpp"
#include "render_context.hpp"

#include "trainer/render.hpp"

#include <cstdio>
#include <optional>
#include <string>
#include <utility>

namespace trainerctl {
namespace {

int run_render(const Parsed& args) {
  const auto format = parse_output_format(args.value("output"));
  std::optional<std::string> key_file;
  if (args.given("ssh-private-key")) key_file = args.value("ssh-private-key");
  const auto gates = feature_gates_flag(args);
  if (!gates) return gates.error();
  const auto framework = plugin_framework(args, *gates);
  if (!framework) return framework.error();
  auto docs = read_job_documents(args);
  if (!docs) return report_error(docs.error());
  auto ctx = make_render_context(args.value("uid"), key_file);
  trainer::RenderDocumentsOptions options;
  options.namespace_ = args.value("namespace");
  WarningPrinter warnings;
  options.on_warning = [&warnings](std::string_view w) { warnings.print(w); };
  options.builtin_runtimes = args.enabled("builtin-runtimes");
  options.framework = framework->get();
  options.strict_fields = args.enabled("strict");
  auto rendered = trainer::render_documents(std::move(*docs), ctx, options);
  if (!rendered) return report_error(rendered.error());
  if (!rendered->skipped_reason.empty()) {
    std::fprintf(stderr, "%s\n", rendered->skipped_reason.c_str());
  }
  print_documents(rendered->objects, *format);
  std::fflush(stdout);
  warnings.print_ignored_fields();
  return kExitOk;
}

}  // namespace

const Command& render_command() {
  static const Command command{
      "render",
      "render the objects the Kubeflow Trainer controller would create",
      "Renders the objects the Kubeflow Trainer controller would create for the one TrainJob\n"
      "among the inputs, using the (Cluster)TrainingRuntime it references (also among the\n"
      "inputs). Objects of other kinds are taken as objects that already exist in the cluster.\n"
      "Training Operator v1 jobs among the inputs are converted first ('trainerctl convert').",
      {},
      {kFilenameFlag,
       {"uid", '\0', "UID", "TrainJob UID for owner references (default: a random UUID)"},
       kNamespaceFlag,
       {"ssh-private-key", '\0', "FILE", "MPI: use this ECDSA P-521 key instead of generating one"},
       kBuiltinRuntimesFlag,
       kFeatureGatesFlag,
       kPluginFlag,
       kStrictFlag,
       {"output",
        'o',
        "yaml|json",
        "yaml: one document per object; json: a v1 List",
        {"yaml", "json"},
        "yaml"}},
      run_render};
  return command;
}

}  // namespace trainerctl
