// SPDX-License-Identifier: Apache-2.0
#include "commands.hpp"
#include "input_files.hpp"
#include "output.hpp"
#include "plugin_flags.hpp"
#include "render_context.hpp"

#include "trainer/admission.hpp"

#include <cstdio>
#include <utility>

namespace trainerctl {
namespace {

int run_validate(const Parsed& args) {
  const auto format = parse_output_format(args.value("output"));
  // Validation runs with the feature gates off, as the ctx below has them.
  const auto framework = plugin_framework(args, trainer::FeatureGates{});
  if (!framework) return framework.error();
  auto docs = read_job_documents(args);
  if (!docs) return report_error(docs.error());
  // Validation never builds objects, so the context needs no UID, clock or keys.
  const trainer::RenderContext ctx;
  trainer::AdmissionOptions options;
  options.on_warning = print_warning;
  options.builtin_runtimes = args.enabled("builtin-runtimes");
  options.framework = framework->get();
  options.strict_fields = args.enabled("strict");
  auto admission = trainer::admit(std::move(*docs), ctx, options);
  if (!admission) return report_error(admission.error());
  if (!admission->ok()) return report_field_errors(admission->errors);
  if (*format != OutputFormat::kNone) print_objects(admission->objects, *format);
  return kExitOk;
}

}  // namespace

const Command& validate_command() {
  static const Command command{
      "validate",
      "decode, default and validate TrainJobs and (Cluster)TrainingRuntimes",
      "Decodes, defaults and validates TrainJobs, TrainingRuntimes and ClusterTrainingRuntimes.\n"
      "A TrainJob is also checked against the runtime it references when that runtime is among\n"
      "the inputs, with every plugin's rules (the same admission path as render); when it is\n"
      "not, a warning names the runtime it was not checked against (a TrainingRuntime of that\n"
      "name in another namespace rejects it). With -o, the defaulted objects are printed.\n"
      "Training Operator v1 jobs among the inputs are converted first ('trainerctl convert').",
      {},
      {kFilenameFlag,
       kBuiltinRuntimesFlag,
       kPluginFlag,
       kStrictFlag,
       {"output",
        'o',
        "yaml|json",
        "print the defaulted objects: yaml, one document per object; json, a v1 List",
        {"yaml", "json"}}},
      run_validate};
  return command;
}

}  // namespace trainerctl
