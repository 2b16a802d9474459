// SPDX-License-Identifier: Apache-2.0
// `trainerctl convert -f FILE...`: Training Operator v1 jobs and Katib Experiments to their
// Trainer v2 objects (trainer::convert), printed as `trainerctl render` prints objects.
#include "commands.hpp"
#include "input_files.hpp"
#include "output.hpp"

namespace trainerctl {
namespace {

int run_convert(const Parsed& args) {
  const auto format = parse_output_format(args.value("output"));
  // The same conversion run, render, validate and apply do on the way in, so what this prints
  // is what they admit.
  auto docs = read_job_documents(args);
  if (!docs) return report_error(docs.error());
  print_documents(*docs, *format);
  return kExitOk;
}

}  // namespace

const Command& convert_command() {
  static const Command command{
      "convert",
      "convert Training Operator v1 jobs and Katib Experiments to Trainer v2",
      "Converts every Training Operator v1 job among the inputs (kubeflow.org/v1 PyTorchJob,\n"
      "TFJob, MPIJob, XGBoostJob, JAXJob, PaddleJob) to a TrainJob, with a TrainingRuntime\n"
      "generated next to it where no built-in runtime reproduces the job's pods, and every Katib\n"
      "Experiment (kubeflow.org/v1beta1) to an OptimizationJob; other documents are printed as\n"
      "they are, so the output replaces the input. A v1 field that Trainer v2 cannot express is\n"
      "a warning naming its path (an error with --strict). See docs/convert.md.",
      {},
      {kFilenameFlag,
       kNamespaceFlag,
       kStrictFlag,
       {"output",
        'o',
        "yaml|json",
        "yaml: one document per object; json: a v1 List",
        {"yaml", "json"},
        "yaml"}},
      run_convert};
  return command;
}

}  // namespace trainerctl
