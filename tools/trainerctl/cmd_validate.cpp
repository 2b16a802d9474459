// SPDX-License-Identifier: Apache-2.0
#include "commands.hpp"
#include "input_files.hpp"
#include "output.hpp"
#include "render_context.hpp"

#include "trainer/render.hpp"

#include <cstdio>
#include <string_view>

namespace trainerctl {
namespace {

constexpr std::string_view kUsage =
    "usage: trainerctl validate -f FILE [-f FILE ...] [--builtin-runtimes] [-o yaml|json]\n"
    "  Decodes, defaults and validates TrainJobs, TrainingRuntimes and ClusterTrainingRuntimes.\n"
    "  A TrainJob is also checked against the runtime it references when that runtime is among\n"
    "  the inputs, with every plugin's rules (the same admission path as render). With -o, the\n"
    "  defaulted objects are printed. --builtin-runtimes: a ClusterTrainingRuntime that is not\n"
    "  among the inputs may be one that ships with libtrainer (see 'trainerctl runtimes').\n";

}  // namespace

int cmd_validate(const Args& args) {
  std::vector<std::string> files;
  std::string output;
  bool builtin_runtimes = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    const bool has_value = i + 1 < args.size();
    if ((a == "-f" || a == "--filename") && has_value) {
      files.push_back(args[++i]);
    } else if ((a == "-o" || a == "--output") && has_value) {
      output = args[++i];
    } else if (a == "--builtin-runtimes") {
      builtin_runtimes = true;
    } else if (a == "-h" || a == "--help") {
      std::fputs(kUsage.data(), stdout);
      return kExitOk;
    } else {
      std::fprintf(stderr, "error: unexpected argument \"%s\"\n%s", a.c_str(), kUsage.data());
      return kExitUsage;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "error: at least one -f FILE is required\n%s", kUsage.data());
    return kExitUsage;
  }
  const auto format = parse_output_format(output);
  if (!format) {
    std::fprintf(stderr, "error: -o must be yaml or json, not \"%s\"\n", output.c_str());
    return kExitUsage;
  }

  auto docs = read_documents(files);
  if (!docs) return report_error(docs.error());
  // Validation never builds objects, so the context needs no UID, clock or keys.
  const trainer::RenderContext ctx;
  trainer::RenderDocumentsOptions options;
  options.on_warning = print_warning;
  options.builtin_runtimes = builtin_runtimes;
  auto admission = trainer::admit_documents(*docs, ctx, options);
  if (!admission) return report_error(admission.error());
  if (!admission->ok()) return report_field_errors(admission->errors);
  if (*format != OutputFormat::kNone) print_objects(admission->objects, *format);
  return kExitOk;
}

}  // namespace trainerctl
