// SPDX-License-Identifier: Apache-2.0
//
// OptimizationJob CRD rules (reference 1.15, upstream `optimizationjob_types.go`). Fields are
// visited in the CRD's field order; for each field its schema errors come first, then its CEL
// rules, then its children. `trainJobTemplate.spec` is checked by the TrainJob rules.
#include "trainer/codec.hpp"
#include "validation/rules.hpp"

#include <cstdlib>
#include <regex>

namespace trainer::detail {
namespace {

constexpr const char* kDoublePattern = R"(^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$)";

// A required list whose `minItems` is 1: the typed model cannot tell an absent list from `[]`,
// so an empty one is reported as absent (`Required value`), the common case.
void check_required_list(Errors& errs, const FieldPath& path, std::size_t size, std::size_t max) {
  if (size == 0) {
    errs.push_back(field_required(path.str(), ""));
  } else {
    check_max_items(errs, path, size, max);
  }
}

void check_range_1_100(Errors& errs, const FieldPath& path, const std::optional<int>& v) {
  if (!v) return;
  check_minimum(errs, path, *v, 1);
  check_maximum(errs, path, *v, 100);
}

// `[has(a),has(b),...].filter(x,x==true).size() == 1` as kubebuilder's ExactlyOneOf writes it.
void check_exactly_one(Errors& errs, const FieldPath& path, int set, const char* names) {
  if (set != 1) {
    errs.push_back(
        cel_invalid(path.str(), std::nullopt,
                    std::string("exactly one of the fields in [") + names + "] must be set"));
  }
}

// A `Double` field (`pattern`, `maxLength=64`, `minLength=1`); true when CEL can use it.
bool double_rules(Errors& errs, const FieldPath& path, const std::string& value) {
  static const std::regex kPattern(kDoublePattern);
  if (value.empty()) {
    errs.push_back(field_required(path.str(), ""));
    return false;
  }
  const std::size_t before = errs.size();
  check_max_length(errs, path, value, 64);
  if (!std::regex_match(value, kPattern)) report_pattern(errs, path, value, kDoublePattern);
  return errs.size() == before;
}

void range_rules(const RangeSearchSpace& range, const FieldPath& path, bool log_uniform,
                 Errors& errs) {
  const bool max_ok = double_rules(errs, FieldPath::field(path, "max"), range.max);
  const bool min_ok = double_rules(errs, FieldPath::field(path, "min"), range.min);
  // CEL `double(...)` of a string the schema refused is not evaluated here: the API server
  // reports the schema errors and a CEL conversion error would add nothing.
  if (!max_ok || !min_ok) return;
  const double min = std::strtod(range.min.c_str(), nullptr);
  const double max = std::strtod(range.max.c_str(), nullptr);
  if (log_uniform && !(min > 0.0)) {
    errs.push_back(cel_invalid(path.str(), std::nullopt, "min must be strictly greater than 0"));
  }
  if (!(min < max)) {
    errs.push_back(cel_invalid(path.str(), std::nullopt, "min must be strictly less than max"));
  }
}

void categorical_rules(const CategoricalSearchSpace& cat, const FieldPath& path, Errors& errs) {
  const FieldPath choices = FieldPath::field(path, "choices");
  check_required_list(errs, choices, cat.choices.size(), 100);
  std::vector<boost::json::value> items;
  for (std::size_t i = 0; i < cat.choices.size(); ++i) {
    check_max_length(errs, FieldPath::index(choices, i), cat.choices[i], 64);
    items.emplace_back(cat.choices[i]);
  }
  check_unique_set(errs, choices, items);
}

void parameter_rules(const OptimizationParameter& p, const FieldPath& path, Errors& errs) {
  const FieldPath name = FieldPath::field(path, "name");
  if (p.name.empty()) {
    errs.push_back(field_required(name.str(), ""));
  } else {
    check_max_length(errs, name, p.name, 64);
  }
  const FieldPath space_path = FieldPath::field(path, "searchSpace");
  const SearchSpace& space = p.search_space;
  if (space.categorical)
    categorical_rules(*space.categorical, FieldPath::field(space_path, "categorical"), errs);
  if (space.log_uniform)
    range_rules(*space.log_uniform, FieldPath::field(space_path, "logUniform"), true, errs);
  if (space.uniform)
    range_rules(*space.uniform, FieldPath::field(space_path, "uniform"), false, errs);
  check_exactly_one(errs, space_path,
                    int(space.uniform.has_value()) + int(space.log_uniform.has_value()) +
                        int(space.categorical.has_value()),
                    "uniform logUniform categorical");
}

void objectives_rules(const std::vector<Objective>& objectives, Errors& errs) {
  const FieldPath path("spec.objectives");
  check_required_list(errs, path, objectives.size(), 1);
  std::vector<std::optional<boost::json::value>> keys;
  for (const auto& o : objectives) keys.emplace_back(boost::json::value(o.metric));
  check_unique_map_keys(errs, path, "metric", keys);
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    const FieldPath item = FieldPath::index(path, i);
    const FieldPath metric = FieldPath::field(item, "metric");
    if (objectives[i].metric.empty()) {
      errs.push_back(field_required(metric.str(), ""));
    } else {
      check_max_length(errs, metric, objectives[i].metric, 64);
    }
  }
}

void parameters_rules(const std::vector<OptimizationParameter>& parameters, Errors& errs) {
  const FieldPath path("spec.parameters");
  check_required_list(errs, path, parameters.size(), 100);
  std::vector<std::optional<boost::json::value>> keys;
  for (const auto& p : parameters) keys.emplace_back(boost::json::value(p.name));
  check_unique_map_keys(errs, path, "name", keys);
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    parameter_rules(parameters[i], FieldPath::index(path, i), errs);
  }
}

void template_rules(const OptimizationJob& job, const OptimizationJob* old, Errors& errs) {
  const TrainJobTemplate& tmpl = job.spec.train_job_template;
  if (tmpl.metadata.name || tmpl.metadata.namespace_) {
    errs.push_back(cel_invalid("spec.trainJobTemplate.metadata", std::nullopt,
                               "name and namespace cannot be set in a template."));
  }
  // The template's spec has the TrainJobSpec schema, transition rules included.
  Errors spec_errs;
  const TrainJob as_job = template_train_job(job);
  if (old != nullptr) {
    const TrainJob old_job = template_train_job(*old);
    train_job_rules(as_job, &old_job, spec_errs);
  } else {
    train_job_rules(as_job, nullptr, spec_errs);
  }
  reroot_template_errors(spec_errs);
  errs.insert(errs.end(), spec_errs.begin(), spec_errs.end());
}

void spec_cel_rules(const OptimizationJob& job, const OptimizationJob* old, Errors& errs) {
  const OptimizationJobSpec& spec = job.spec;
  // CEL equality of the whole spec; list-map lists are compared in order, which only differs
  // from CEL for reordered objectives/parameters (a change anyway for the controller).
  if (old != nullptr && to_json(job).at("spec") != to_json(*old).at("spec")) {
    errs.push_back(cel_invalid("spec", std::nullopt,
                               "OptimizationJobSpec is immutable and cannot be updated after "
                               "creation"));
  }
  if (spec.parallel_trials && spec.num_trials && *spec.parallel_trials > *spec.num_trials) {
    errs.push_back(cel_invalid("spec", std::nullopt, "parallelTrials cannot exceed numTrials"));
  }
  if (spec.search_algorithm && spec.search_algorithm->grid) {
    for (const auto& p : spec.parameters) {
      if (!p.search_space.categorical) {
        errs.push_back(cel_invalid("spec", std::nullopt,
                                   "Grid search requires all parameters to be Categorical; "
                                   "Uniform and LogUniform are not supported."));
        break;
      }
    }
  }
}

void status_rules(const OptimizationJobStatus& status, Errors& errs) {
  {
    const FieldPath path("status.conditions");
    check_max_items(errs, path, status.conditions.size(), 100);
    std::vector<std::optional<boost::json::value>> keys;
    for (const auto& c : status.conditions) keys.emplace_back(boost::json::value(c.type));
    check_unique_map_keys(errs, path, "type", keys);
    for (std::size_t i = 0; i < status.conditions.size(); ++i) {
      condition_rules(status.conditions[i], FieldPath::index(path, i), errs);
    }
  }
  if (!status.result) return;
  const OptimizationResult& result = *status.result;
  const FieldPath path("status.result");
  const FieldPath params = FieldPath::field(path, "parameters");
  check_max_items(errs, params, result.parameters.size(), 100);
  std::vector<std::optional<boost::json::value>> keys;
  for (const auto& p : result.parameters) keys.emplace_back(boost::json::value(p.name));
  check_unique_map_keys(errs, params, "name", keys);
  for (std::size_t i = 0; i < result.parameters.size(); ++i) {
    const auto& p = result.parameters[i];
    for (const auto& [key, value] :
         {std::pair<const char*, const std::string*>{"name", &p.name}, {"value", &p.value}}) {
      const FieldPath item = FieldPath::index(params, i);
      const FieldPath field = FieldPath::field(item, key);
      if (value->empty()) {
        errs.push_back(field_required(field.str(), ""));
      } else {
        check_max_length(errs, field, *value, 64);
      }
    }
  }
  // The metrics as upstream's proposal declares them (kubeflow/trainer#3799): a list-map keyed
  // by metric, metric 1-64 characters, value required.
  const FieldPath metrics = FieldPath::field(path, "metrics");
  std::vector<std::optional<boost::json::value>> metric_keys;
  for (const auto& m : result.metrics) metric_keys.emplace_back(boost::json::value(m.metric));
  check_unique_map_keys(errs, metrics, "metric", metric_keys);
  for (std::size_t i = 0; i < result.metrics.size(); ++i) {
    const auto& m = result.metrics[i];
    const FieldPath item = FieldPath::index(metrics, i);
    const FieldPath metric = FieldPath::field(item, "metric");
    if (m.metric.empty()) {
      errs.push_back(field_required(metric.str(), ""));
    } else {
      check_max_length(errs, metric, m.metric, 64);
    }
    if (m.value.empty()) errs.push_back(field_required(FieldPath::field(item, "value").str(), ""));
  }
  const FieldPath name = FieldPath::field(path, "trainJobName");
  if (result.train_job_name.empty()) {
    errs.push_back(field_required(name.str(), ""));
  } else {
    check_max_length(errs, name, result.train_job_name, 63);
  }
}

}  // namespace

TrainJob template_train_job(const OptimizationJob& job) {
  TrainJob out;
  out.metadata = job.spec.train_job_template.metadata;
  out.metadata.name.reset();
  out.metadata.namespace_ = job.metadata.namespace_;
  out.spec = job.spec.train_job_template.spec;
  return out;
}

void reroot_template_errors(Errors& errs) {
  for (FieldError& e : errs) {
    const std::string old_path = e.path;
    const std::string_view path = old_path;
    if (path == "spec" || path.rfind("spec.", 0) == 0 || path.rfind("spec[", 0) == 0) {
      e.path = std::string(kTrainJobTemplateSpecPath) + std::string(path.substr(4));
    } else if (path == "metadata" || path.rfind("metadata.", 0) == 0) {
      e.path = "spec.trainJobTemplate." + old_path;
    } else {
      continue;
    }
    // Schema messages repeat the path (`<path> in body should be ...`).
    if (e.detail.rfind(old_path + " ", 0) == 0)
      e.detail = e.path + e.detail.substr(old_path.size());
  }
}

void optimization_job_rules(const OptimizationJob& job, const OptimizationJob* old, Errors& errs) {
  const OptimizationJobSpec& spec = job.spec;
  check_range_1_100(errs, FieldPath("spec.numTrials"), spec.num_trials);
  objectives_rules(spec.objectives, errs);
  check_range_1_100(errs, FieldPath("spec.parallelTrials"), spec.parallel_trials);
  parameters_rules(spec.parameters, errs);
  if (spec.search_algorithm) {
    check_exactly_one(errs, FieldPath("spec.searchAlgorithm"),
                      int(spec.search_algorithm->random.has_value()) +
                          int(spec.search_algorithm->grid.has_value()),
                      "random grid");
  }
  template_rules(job, old, errs);
  spec_cel_rules(job, old, errs);
  if (job.status) status_rules(*job.status, errs);
}

}  // namespace trainer::detail
