// SPDX-License-Identifier: Apache-2.0
//
// Trial TrainJobs as upstream's OptimizationJob controller (PR #3828, reference 5.3) makes them,
// plus the checks that PR lacks: parameter names must give a valid env name and annotation key.
#include "trainer/tuning.hpp"

#include <cctype>
#include <set>

namespace trainer::tuning {
namespace {

constexpr const char* kJobLabel = "trainer.kubeflow.org/optimizationjob-name";
constexpr const char* kParamAnnotationPrefix = "trainer.kubeflow.org/opt-param-";
constexpr std::size_t kMaxParamNameInKey = 63 - 10;  // an annotation name part: 63 - "opt-param-"

bool alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// The name part of a qualified key: at most 63 characters, alphanumeric at both ends,
// `-_.` and alphanumerics inside.
bool annotation_name_ok(const std::string& name) {
  if (name.empty() || name.size() > kMaxParamNameInKey || !alnum(name.back())) return false;
  for (const char c : name) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> trial_env_name(std::string_view name) {
  std::string out = "KUBEFLOW_TRAINER_OPT_";
  for (const char c : name) {
    if (c == '-' || c == '.' || c == '_') {
      out += '_';
    } else if (alnum(c)) {
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    } else {
      return std::nullopt;
    }
  }
  return out;
}

Result<TrainJob> make_trial(const OptimizationJob& job, std::size_t index,
                            const Assignment& assignment) {
  std::vector<FieldError> errors;
  const std::string job_name = job.metadata.name.value_or("");
  if (job_name.empty()) errors.push_back(field_required("metadata.name", ""));
  const auto& params = job.spec.parameters;
  if (assignment.size() != params.size()) {
    return fail(ErrorCode::kInvalidArgument, "assignment has " + std::to_string(assignment.size()) +
                                                 " values for " + std::to_string(params.size()) +
                                                 " parameters");
  }
  std::set<std::string> env_names;
  TrainJob trial;
  trial.metadata.name = job_name + "-trial-" + std::to_string(index);
  trial.metadata.namespace_ = job.metadata.namespace_;
  // Upstream copies the template's annotations but not its labels.
  trial.metadata.annotations = job.spec.train_job_template.metadata.annotations;
  trial.metadata.labels[kJobLabel] = job_name;
  trial.spec = job.spec.train_job_template.spec;
  if (!trial.spec.trainer) trial.spec.trainer.emplace();
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string path = "spec.parameters[" + std::to_string(i) + "].name";
    const std::string& name = params[i].name;
    if (assignment[i].name != name) {
      return fail(ErrorCode::kInvalidArgument, "assignment " + std::to_string(i) + " is \"" +
                                                   assignment[i].name + "\", want \"" + name +
                                                   "\" (spec order)");
    }
    const auto env_name = trial_env_name(name);
    if (!env_name || !annotation_name_ok(name)) {
      errors.push_back(field_invalid(path, boost::json::string_view(name),
                                     "must be at most 53 characters of [A-Za-z0-9-_.] ending "
                                     "alphanumeric (it names an env var and an annotation)"));
      continue;
    }
    if (!env_names.insert(*env_name).second) {
      errors.push_back(field_duplicate(
          path, boost::json::string_view(name)));  // `a-b` and `a.b` give one env name
      continue;
    }
    trial.metadata.annotations[kParamAnnotationPrefix + name] = assignment[i].value;
    trial.spec.trainer->env.push_back(
        boost::json::object{{"name", *env_name}, {"value", assignment[i].value}});
  }
  if (!errors.empty()) return tl::unexpected(Error::invalid(std::move(errors)));
  trial.metadata.owner_references.push_back(boost::json::object{
      {"apiVersion", job.api_version},
      {"kind", kOptimizationJobKind},
      {"name", job_name},
      {"uid", job.metadata.uid.value_or("")},
      {"controller", true},
      {"blockOwnerDeletion", true},
  });
  return trial;
}

}  // namespace trainer::tuning
