// SPDX-License-Identifier: Apache-2.0
#include "commands.hpp"
#include "input_files.hpp"
#include "output.hpp"
#include "render_context.hpp"

#include "trainer/render.hpp"

#include <cstdio>
#include <optional>
#include <string_view>
#include <utility>

namespace trainerctl {
namespace {

constexpr std::string_view kUsage =
    "usage: trainerctl render -f FILE [-f FILE ...] [--uid UID] [--namespace NS]\n"
    "                         [--ssh-private-key FILE] [--builtin-runtimes]\n"
    "                         [--feature-gates NAME=BOOL,...] [-o yaml|json]\n"
    "  Renders the objects the Kubeflow Trainer controller would create for the one TrainJob\n"
    "  among the inputs, using the (Cluster)TrainingRuntime it references (also among the\n"
    "  inputs). Objects of other kinds are taken as objects that already exist in the cluster.\n"
    "  --uid              TrainJob UID for owner references (default: a random UUID)\n"
    "  --namespace        namespace for inputs that have none (default: default)\n"
    "  --ssh-private-key  MPI: use this ECDSA P-521 key instead of generating one\n"
    "  --builtin-runtimes a ClusterTrainingRuntime that is not among the inputs may be one that\n"
    "                     ships with libtrainer (see 'trainerctl runtimes')\n"
    "  --feature-gates    controller feature gates, e.g. TrainJobStatus=true (default: all off)\n"
    "  -o                 yaml (default: one document per object) or json (a v1 List)\n";

}  // namespace

int cmd_render(const Args& args) {
  std::vector<std::string> files;
  std::string output = "yaml";
  std::string uid;
  std::string ns;
  std::optional<std::string> key_file;
  bool builtin_runtimes = false;
  std::string feature_gates;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    const bool has_value = i + 1 < args.size();
    if ((a == "-f" || a == "--filename") && has_value) {
      files.push_back(args[++i]);
    } else if ((a == "-o" || a == "--output") && has_value) {
      output = args[++i];
    } else if (a == "--uid" && has_value) {
      uid = args[++i];
    } else if ((a == "--namespace" || a == "-n") && has_value) {
      ns = args[++i];
    } else if (a == "--ssh-private-key" && has_value) {
      key_file = args[++i];
    } else if (a == "--feature-gates" && has_value) {
      feature_gates = args[++i];
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
  if (!format || *format == OutputFormat::kNone) {
    std::fprintf(stderr, "error: -o must be yaml or json, not \"%s\"\n", output.c_str());
    return kExitUsage;
  }

  auto gates = trainer::parse_feature_gates(feature_gates);
  if (!gates) {
    std::fprintf(stderr, "error: --feature-gates: %s\n", gates.error().message.c_str());
    return kExitUsage;
  }
  auto docs = read_documents(files);
  if (!docs) return report_error(docs.error());
  auto ctx = make_render_context(uid, key_file);
  ctx.feature_gates = *gates;
  trainer::RenderDocumentsOptions options;
  options.namespace_ = ns;
  options.on_warning = print_warning;
  options.builtin_runtimes = builtin_runtimes;
  auto rendered = trainer::render_documents(std::move(*docs), ctx, options);
  if (!rendered) return report_error(rendered.error());
  if (!rendered->skipped_reason.empty()) {
    std::fprintf(stderr, "%s\n", rendered->skipped_reason.c_str());
  }
  print_documents(rendered->objects, *format);
  return kExitOk;
}

}  // namespace trainerctl
