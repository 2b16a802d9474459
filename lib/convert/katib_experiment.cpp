// SPDX-License-Identifier: Apache-2.0
//
// Katib Experiment -> OptimizationJob (reference 5.4): objective, random/grid algorithm,
// parameters (grid expands int/double ranges to categorical choices), trial counts, and the
// trial template: a TrainJob trialSpec becomes `trainJobTemplate`; a batch/v1 Job becomes a
// generated PlainML TrainingRuntime `<experiment>-trial` that the template references; a
// kubeflow.org/v1 job goes through the v1 conversion first. `${trialParameters.x}` becomes
// `$(KUBEFLOW_TRAINER_OPT_<X>)`, the variable the trial controller puts into the trainer's env.
#include "convert/katib_experiment.hpp"

#include "api/number_text.hpp"
#include "convert/diagnostics.hpp"
#include "trainer/codec.hpp"
#include "trainer/json_path.hpp"
#include "trainer/tuning.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cctype>
#include <cmath>
#include <regex>

namespace trainer::convert::detail {
namespace {

namespace json = boost::json;
using trainer::find_array;
using trainer::find_int;
using trainer::find_object;
using trainer::find_string;

constexpr std::size_t kMaxChoices = 100;
constexpr std::int64_t kMaxTrials = 100;
constexpr std::int64_t kKatibParallelDefault = 3;
constexpr const char* kNoEquivalent = "has no OptimizationJob equivalent; it is dropped";

// Katib's algorithms that have a counterpart among the OptimizationJob's samplers (random,
// grid, and libtrainer's TPE): `change` says what differs, empty when nothing does. Hyperband
// and PBT (which schedule and resume trials) and the NAS algorithms have none.
struct KatibAlgorithm {
  std::string_view name;
  std::string_view sampler;
  std::string change;
};

const std::vector<KatibAlgorithm>& katib_algorithms() {
  static const std::string tpe =
      "libtrainer's TPE searches instead (annotation tuning.trainer.kubeflow.org/algorithm: tpe): ";
  static const std::vector<KatibAlgorithm> table = {
      {"random", "random", ""},
      {"grid", "grid", ""},
      {"tpe", "tpe", ""},
      {"bayesianoptimization", "tpe",
       tpe + "a Tree-structured Parzen Estimator models the objective where Katib fits a "
             "Gaussian process, so the trials differ"},
      {"multivariate-tpe", "tpe",
       tpe + "it models each parameter on its own where Katib's multivariate TPE models them "
             "jointly, so the trials differ"},
      {"cmaes", "tpe",
       tpe + "a Tree-structured Parzen Estimator models the objective where Katib adapts a "
             "covariance matrix (CMA-ES), so the trials differ"},
      {"sobol", "random",
       "random search runs instead: independent uniform draws where Katib follows a Sobol "
       "low-discrepancy sequence, so the trials cover the space less evenly"},
  };
  return table;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (std::size_t pos = text.find(from); pos != std::string::npos;
       pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
}

// A JSON number or a numeric string (Katib carries every value as a string).
std::optional<double> number_of(const json::value* v) {
  if (v == nullptr) return std::nullopt;
  if (v->is_string()) return trainer::detail::parse_float(std::string(v->get_string()));
  if (v->is_number()) return v->to_number<double>();
  return std::nullopt;
}

std::string text_of(const json::value& v) {
  return v.is_string() ? std::string(v.get_string()) : json::serialize(v);
}

// A range bound as the OptimizationJob's `Double` pattern wants it: Katib's text when it already
// matches (`0.01`), else the number's shortest text (`.5` -> `0.5`, `1.` -> `1.0`).
std::string bound_text(const json::value& v, double number) {
  static const std::regex kDouble(R"(^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$)");
  const std::string text = text_of(v);
  return std::regex_match(text, kDouble) ? text : trainer::detail::double_text(number);
}

class ExperimentConverter {
 public:
  ExperimentConverter(const json::object& exp, const Options& options)
      : exp_(exp),
        name_(trainer::object_name(exp)),
        ns_(namespace_of(exp, options)),
        diag_("Experiment " + ns_ + "/" + name_),
        options_(options) {}

  Result<Conversion> run() && {
    job_.metadata.name = name_;
    job_.metadata.namespace_ = ns_;
    if (const auto* meta = find_object(exp_, "metadata")) copy_labels(*meta, job_.metadata);
    const auto* spec = find_object(exp_, "spec");
    if (spec == nullptr) {
      diag_.refuse(field_required("spec", ""));
      return std::move(diag_).finish({}, options_.strict);
    }
    spec_ = spec;
    for (const auto& kv : *spec) {
      const std::string key(kv.key());
      const std::string path = "spec." + key;
      if (key == "objective") {
        objective(kv.value());
      } else if (key == "algorithm") {
        algorithm(kv.value());
      } else if (key == "parameters" || key == "maxTrialCount" || key == "parallelTrialCount" ||
                 key == "trialTemplate") {
        // Below, in dependency order.
      } else if (key == "nasConfig") {
        diag_.refuse(field_invalid(path, json::value(nullptr),
                                   "neural architecture search has no OptimizationJob "
                                   "equivalent"));
      } else if (key == "metricsCollectorSpec") {
        diag_.warn(path, kv.value(),
                   "has no OptimizationJob equivalent; the training code must report the "
                   "objective metric to the TrainJob status itself");
      } else {
        diag_.warn(path, kv.value(), kNoEquivalent);
      }
    }
    if (!spec->contains("objective")) diag_.refuse(field_required("spec.objective", ""));
    if (!spec->contains("algorithm")) diag_.refuse(field_required("spec.algorithm", ""));
    parameters();
    trial_counts();
    grid_size_rule();
    std::vector<json::value> objects;
    trial_template(objects);
    if (diag_.failed()) return std::move(diag_).finish({}, options_.strict);
    objects.push_back(to_json(job_));
    return std::move(diag_).finish(std::move(objects), options_.strict);
  }

 private:
  static std::string namespace_of(const json::object& exp, const Options& options) {
    std::string ns = trainer::object_namespace(exp);
    if (ns.empty()) ns = options.namespace_;
    return ns.empty() ? "default" : ns;
  }

  static void copy_labels(const json::object& meta, ObjectMeta& out) {
    for (const char* key : {"labels", "annotations"}) {
      const auto* m = find_object(meta, key);
      if (m == nullptr) continue;
      StringMap& target = std::string(key) == "labels" ? out.labels : out.annotations;
      for (const auto& kv : *m) {
        if (kv.value().is_string()) target[kv.key()] = std::string(kv.value().get_string());
      }
    }
  }

  void objective(const json::value& v) {
    const auto* o = v.if_object();
    if (o == nullptr) {
      diag_.refuse(field_invalid("spec.objective", v, "must be an object"));
      return;
    }
    Objective out;
    const auto type = find_string(*o, "type").value_or("");
    if (type == "minimize") {
      out.direction = ObjectiveDirection::kMinimize;
    } else if (type == "maximize") {
      out.direction = ObjectiveDirection::kMaximize;
    } else {
      diag_.refuse(field_not_supported("spec.objective.type", json::value(type.c_str()),
                                       {"minimize", "maximize"}));
    }
    out.metric = find_string(*o, "objectiveMetricName").value_or("");
    if (out.metric.empty()) diag_.refuse(field_required("spec.objective.objectiveMetricName", ""));
    for (const auto& kv : *o) {
      const std::string key(kv.key());
      if (key == "type" || key == "objectiveMetricName") continue;
      if (key == "metricStrategies" || key == "additionalMetricNames") {
        diag_.warn("spec.objective." + key, kv.value(),
                   "has no OptimizationJob equivalent; the objective is the last value the "
                   "trial reports");
      } else {
        diag_.warn("spec.objective." + key, kv.value(), kNoEquivalent);
      }
    }
    job_.spec.objectives.push_back(std::move(out));
  }

  void algorithm(const json::value& v) {
    const auto* a = v.if_object();
    if (a == nullptr) {
      diag_.refuse(field_invalid("spec.algorithm", v, "must be an object"));
      return;
    }
    const std::string name = find_string(*a, "algorithmName").value_or("");
    const KatibAlgorithm* katib = nullptr;
    std::vector<std::string> supported;
    for (const auto& k : katib_algorithms()) {
      supported.emplace_back(k.name);
      if (k.name == name) katib = &k;
    }
    if (katib == nullptr) {
      diag_.refuse(field_not_supported("spec.algorithm.algorithmName", json::value(name.c_str()),
                                       supported));
      return;
    }
    SearchAlgorithm out;
    const bool tpe = katib->sampler == "tpe";
    if (katib->sampler == "grid") {
      out.grid = GridSearch{};
      grid_ = true;
    } else {
      // TPE takes its seed from searchAlgorithm.random as well (docs/tuning.md).
      out.random = RandomSearch{};
    }
    if (tpe) job_.metadata.annotations[tuning::kAlgorithmAnnotation] = "tpe";
    if (!katib->change.empty()) {
      diag_.warn("spec.algorithm.algorithmName", json::value(name.c_str()),
                 "has no OptimizationJob equivalent; " + katib->change);
    }
    if (const auto* settings = find_array(*a, "algorithmSettings")) {
      for (std::size_t i = 0; i < settings->size(); ++i) {
        const std::string path = "spec.algorithm.algorithmSettings[" + std::to_string(i) + "]";
        const auto* s = (*settings)[i].if_object();
        const std::string key = s != nullptr ? find_string(*s, "name").value_or("") : "";
        const json::value* value = s != nullptr ? s->if_contains("value") : nullptr;
        if (key == "random_state" && out.random) {
          const auto seed = number_of(value);
          if (!seed || *seed != std::floor(*seed) || *seed < 0) {
            diag_.refuse(field_invalid(path + ".value", value ? *value : json::value(),
                                       "random_state must be a non-negative integer"));
          } else {
            out.random->seed = static_cast<std::int64_t>(*seed);
          }
        } else {
          diag_.warn(path, (*settings)[i],
                     out.grid ? "has no OptimizationJob equivalent (grid takes no settings)"
                     : tpe    ? "has no OptimizationJob equivalent; libtrainer's TPE settings are "
                                "fixed (docs/tuning.md)"
                              : kNoEquivalent);
        }
      }
    }
    job_.spec.search_algorithm = std::move(out);
  }

  // Katib grid over an int/double range: int -> range(min, max+1, step); double ->
  // arange(min, max+step, step) without a last value above max (reference 5.4).
  std::optional<std::vector<std::string>> grid_values(const std::string& path, bool is_int,
                                                      double min, double max,
                                                      std::optional<double> step) {
    if (!step) {
      if (!is_int) {
        diag_.refuse(field_required(path + ".feasibleSpace.step",
                                    "grid search over a double parameter needs a step"));
        return std::nullopt;
      }
      step = 1;
    }
    if (!(*step > 0)) {
      diag_.refuse(field_invalid(path + ".feasibleSpace.step", json::value(*step),
                                 "must be greater than 0"));
      return std::nullopt;
    }
    if (!(min <= max)) {
      diag_.refuse(field_invalid(path + ".feasibleSpace.max", json::value(max),
                                 "must not be less than min"));
      return std::nullopt;
    }
    std::vector<std::string> out;
    // A relative tolerance keeps `max` itself when (max - min) / step is a whole number that
    // floating point lands just below or above.
    const double tolerance = *step * 1e-9;
    const double count = std::floor((max - min + tolerance) / *step) + 1;
    if (count > static_cast<double>(kMaxChoices)) {
      diag_.refuse(field_invalid(path + ".feasibleSpace", json::value(nullptr),
                                 "the grid has more than 100 values; an OptimizationJob "
                                 "parameter allows at most 100 choices"));
      return std::nullopt;
    }
    for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
      const double value = min + static_cast<double>(i) * *step;
      if (value > max + tolerance) break;
      // Integers print without a fraction; doubles with their shortest round-trip text,
      // after rounding away the error of `min + i*step`.
      out.push_back(is_int ? std::to_string(static_cast<std::int64_t>(value))
                           : trainer::detail::double_text(std::round(value * 1e12) / 1e12));
    }
    return out;
  }

  void parameter(const json::value& v, const std::string& path) {
    const auto* p = v.if_object();
    if (p == nullptr) {
      diag_.refuse(field_invalid(path, v, "must be an object"));
      return;
    }
    OptimizationParameter out;
    out.name = find_string(*p, "name").value_or("");
    if (out.name.empty()) diag_.refuse(field_required(path + ".name", ""));
    const std::string type = find_string(*p, "parameterType").value_or("");
    static const json::object kEmpty;
    const auto* fs = find_object(*p, "feasibleSpace");
    const json::object& space = fs != nullptr ? *fs : kEmpty;
    const std::string fs_path = path + ".feasibleSpace";
    if (type == "categorical" || type == "discrete") {
      const auto* list = find_array(space, "list");
      if (list == nullptr || list->empty()) {
        diag_.refuse(field_required(fs_path + ".list", ""));
        return;
      }
      CategoricalSearchSpace cat;
      for (const auto& item : *list) cat.choices.push_back(text_of(item));
      if (cat.choices.size() > kMaxChoices) {
        diag_.refuse(field_too_many(fs_path + ".list", cat.choices.size(), kMaxChoices));
      }
      out.search_space.categorical = std::move(cat);
    } else if (type == "int" || type == "double") {
      const bool is_int = type == "int";
      const auto min = number_of(space.if_contains("min"));
      const auto max = number_of(space.if_contains("max"));
      if (!min) diag_.refuse(field_required(fs_path + ".min", ""));
      if (!max) diag_.refuse(field_required(fs_path + ".max", ""));
      if (!min || !max) return;
      const auto step = number_of(space.if_contains("step"));
      const std::string distribution = find_string(space, "distribution").value_or("uniform");
      if (grid_) {
        if (distribution != "uniform") {
          diag_.warn(fs_path + ".distribution", json::value(distribution.c_str()),
                     "has no meaning for grid search; the grid is evenly spaced");
        }
        auto values = grid_values(path, is_int, *min, *max, step);
        if (!values) return;
        out.search_space.categorical = CategoricalSearchSpace{std::move(*values)};
      } else {
        RangeSearchSpace range{bound_text(*space.if_contains("min"), *min),
                               bound_text(*space.if_contains("max"), *max),
                               is_int ? ParameterType::kInt : ParameterType::kFloat};
        if (distribution == "uniform") {
          out.search_space.uniform = std::move(range);
        } else if (distribution == "logUniform") {
          out.search_space.log_uniform = std::move(range);
        } else {
          diag_.refuse(field_not_supported(fs_path + ".distribution",
                                           json::value(distribution.c_str()),
                                           {"uniform", "logUniform"}));
          return;
        }
        if (step && !(is_int && *step == 1)) {
          diag_.warn(fs_path + ".step", *space.if_contains("step"),
                     "has no OptimizationJob equivalent; values are sampled from the whole "
                     "range");
        }
      }
    } else {
      diag_.refuse(field_not_supported(path + ".parameterType", json::value(type.c_str()),
                                       {"double", "int", "discrete", "categorical"}));
      return;
    }
    job_.spec.parameters.push_back(std::move(out));
  }

  void parameters() {
    const auto* params = find_array(*spec_, "parameters");
    if (params == nullptr || params->empty()) {
      diag_.refuse(field_required("spec.parameters", ""));
      return;
    }
    for (std::size_t i = 0; i < params->size(); ++i) {
      parameter((*params)[i], "spec.parameters[" + std::to_string(i) + "]");
    }
  }

  void trial_counts() {
    const auto max = find_int(*spec_, "maxTrialCount");
    if (const auto* m = spec_->if_contains("maxTrialCount"); m != nullptr && m->is_uint64()) {
      diag_.refuse(
          field_invalid("spec.maxTrialCount", *m, "an OptimizationJob runs 1..100 trials"));
      return;
    }
    if (spec_->contains("maxTrialCount") && !max) {
      diag_.refuse(
          field_invalid("spec.maxTrialCount", spec_->at("maxTrialCount"), "must be an integer"));
      return;
    }
    if (!max) {
      diag_.refuse(field_required("spec.maxTrialCount",
                                  "an OptimizationJob runs a fixed number of trials (1..100)"));
      return;
    }
    if (*max < 1 || *max > kMaxTrials) {
      diag_.refuse(field_invalid("spec.maxTrialCount", json::value(*max),
                                 "an OptimizationJob runs 1..100 trials"));
      return;
    }
    job_.spec.num_trials = static_cast<std::int32_t>(*max);
    // Katib's default is 3; the OptimizationJob's is 1, so the value is always written.
    std::int64_t parallel = std::min(kKatibParallelDefault, *max);
    if (spec_->contains("parallelTrialCount")) {
      const auto p = find_int(*spec_, "parallelTrialCount");
      if (!p || *p < 1 || *p > *max) {
        diag_.refuse(field_invalid("spec.parallelTrialCount", spec_->at("parallelTrialCount"),
                                   "must be between 1 and maxTrialCount"));
        return;
      }
      parallel = *p;
    }
    job_.spec.parallel_trials = static_cast<std::int32_t>(parallel);
  }

  // Katib's grid validation: maxTrialCount may not exceed the number of combinations.
  void grid_size_rule() {
    if (!grid_ || !job_.spec.num_trials || diag_.failed()) return;
    double combinations = 1;
    for (const auto& p : job_.spec.parameters) {
      if (p.search_space.categorical) {
        combinations *= static_cast<double>(p.search_space.categorical->choices.size());
      }
    }
    if (static_cast<double>(*job_.spec.num_trials) > combinations) {
      diag_.refuse(field_invalid("spec.maxTrialCount", json::value(*job_.spec.num_trials),
                                 "grid search has " +
                                     std::to_string(static_cast<std::int64_t>(combinations)) +
                                     " combinations; maxTrialCount must not exceed it"));
    }
  }

  // `${trialParameters.<name>}` -> `$(KUBEFLOW_TRAINER_OPT_<REFERENCE>)` in the serialized
  // trialSpec, as Katib substitutes its own values (plain string replacement).
  std::optional<json::object> substituted_trial_spec(const json::object& tmpl) {
    const auto* spec = find_object(tmpl, "trialSpec");
    if (spec == nullptr) {
      if (tmpl.contains("configMap")) {
        diag_.refuse(field_invalid("spec.trialTemplate.configMap", tmpl.at("configMap"),
                                   "a trial template in a ConfigMap cannot be read here; inline "
                                   "it as trialSpec"));
      } else {
        diag_.refuse(field_required("spec.trialTemplate.trialSpec", ""));
      }
      return std::nullopt;
    }
    std::string text = json::serialize(*spec);
    if (const auto* params = find_array(tmpl, "trialParameters")) {
      for (std::size_t i = 0; i < params->size(); ++i) {
        const auto* p = (*params)[i].if_object();
        if (p == nullptr) continue;
        const std::string name = find_string(*p, "name").value_or("");
        const std::string ref = find_string(*p, "reference").value_or("");
        const std::string path = "spec.trialTemplate.trialParameters[" + std::to_string(i) + "]";
        bool known = false;
        for (const auto& param : job_.spec.parameters) known = known || param.name == ref;
        if (!known) {
          diag_.warn(path + ".reference", json::value(ref.c_str()),
                     "is not a search parameter (trial metadata references have no "
                     "OptimizationJob equivalent); the placeholder is left as it is");
          continue;
        }
        // A name no env var can carry is refused when a trial is made (make_trial); the
        // placeholder then stays as it is.
        if (const auto env = tuning::trial_env_name(ref)) {
          replace_all(text, "${trialParameters." + name + "}", "$(" + *env + ")");
        }
      }
    }
    json::value parsed = json::parse(text);
    return std::move(parsed.get_object());
  }

  void template_metadata(const json::object& trial_spec) {
    ObjectMeta& meta = job_.spec.train_job_template.metadata;
    if (const auto* m = find_object(trial_spec, "metadata")) {
      copy_labels(*m, meta);
      for (const char* key : {"name", "namespace"}) {
        if (m->contains(key)) {
          diag_.warn(std::string("spec.trialTemplate.trialSpec.metadata.") + key, m->at(key),
                     "is set by the trial controller; it is dropped");
        }
      }
    }
  }

  // A TrainJob trialSpec is the template as it is.
  void train_job_trial(const json::object& trial_spec) {
    auto decoded = decode_train_job(json::value(trial_spec));
    if (!decoded) {
      for (auto fe : decoded.error().fields) {
        fe.path = "spec.trialTemplate.trialSpec." + fe.path;
        diag_.refuse(std::move(fe));
      }
      if (decoded.error().fields.empty()) {
        diag_.refuse(field_invalid("spec.trialTemplate.trialSpec", json::value(nullptr),
                                   decoded.error().message));
      }
      return;
    }
    for (const auto& w : decoded->warnings) {
      diag_.warn("spec.trialTemplate.trialSpec", json::value(nullptr), w);
    }
    job_.spec.train_job_template.spec = std::move(decoded->object.spec);
    // The trial controller appends KUBEFLOW_TRAINER_OPT_* after the template's env, and
    // Kubernetes expands `$(VAR)` in an env value only from earlier entries.
    if (const auto& trainer = job_.spec.train_job_template.spec.trainer) {
      for (std::size_t i = 0; i < trainer->env.size(); ++i) {
        const auto* value = trainer->env[i].if_contains("value");
        if (value != nullptr && value->is_string() &&
            std::string_view(value->get_string()).find("$(KUBEFLOW_TRAINER_OPT_") !=
                std::string_view::npos) {
          diag_.warn(
              "spec.trialTemplate.trialSpec.spec.trainer.env[" + std::to_string(i) + "].value",
              *value,
              "refers to a trial parameter, which the trial's env defines after it, so "
              "Kubernetes leaves it unexpanded; use it in command or args");
        }
      }
    }
  }

  // A batch/v1 Job: a PlainML TrainingRuntime whose one replicated job `node` runs the Job's
  // pod template, the primary container renamed `node` so that the trainer's env (the trial
  // parameters) reaches it.
  void job_trial(const json::object& trial_spec, const json::object& tmpl,
                 std::vector<json::value>& objects) {
    const auto* job_spec = find_object(trial_spec, "spec");
    if (job_spec == nullptr) {
      diag_.refuse(field_required("spec.trialTemplate.trialSpec.spec", ""));
      return;
    }
    json::object spec = *job_spec;
    const std::string primary = find_string(tmpl, "primaryContainerName").value_or("");
    json::object* pod_spec = trainer::find_object(spec, {"template", "spec"});
    json::array* containers = pod_spec != nullptr ? find_array(*pod_spec, "containers") : nullptr;
    bool renamed = false;
    if (containers != nullptr) {
      for (auto& c : *containers) {
        auto* co = c.if_object();
        if (co == nullptr) continue;
        if (find_string(*co, "name").value_or("") == primary ||
            (primary.empty() && containers->size() == 1)) {
          (*co)["name"] = "node";
          renamed = true;
          break;
        }
      }
    }
    if (!renamed) {
      diag_.refuse(field_invalid("spec.trialTemplate.primaryContainerName",
                                 json::value(primary.c_str()),
                                 "must name a container of the trial Job's pod template"));
      return;
    }
    const std::string runtime = name_ + "-trial";
    json::object rj{
        {"name", "node"},
        {"template",
         json::object{{"metadata", json::object{{"labels", json::object{{"trainer.kubeflow.org/"
                                                                         "trainjob-ancestor-step",
                                                                         "trainer"}}}}},
                      {"spec", std::move(spec)}}}};
    json::object rt{
        {"apiVersion", kApiVersion},
        {"kind", kTrainingRuntimeKind},
        {"metadata", json::object{{"name", runtime}, {"namespace", ns_}}},
        {"spec",
         json::object{
             {"mlPolicy", json::object{{"numNodes", 1}}},
             {"template", json::object{{"spec", json::object{{"replicatedJobs",
                                                              json::array{std::move(rj)}}}}}}}}};
    objects.emplace_back(std::move(rt));
    TrainJobSpec& out = job_.spec.train_job_template.spec;
    out.runtime_ref.name = runtime;
    out.runtime_ref.kind = kTrainingRuntimeKind;
  }

  // A kubeflow.org/v1 job: its own conversion, whose TrainJob spec becomes the template.
  void v1_trial(const json::object& trial_spec, std::vector<json::value>& objects) {
    json::object named = trial_spec;
    auto& meta = trainer::ensure_object(named, {"metadata"});
    meta["name"] = name_ + "-trial";
    meta["namespace"] = ns_;
    auto converted = convert_job(json::value(std::move(named)), Options{false, ns_});
    if (!converted) {
      for (auto fe : converted.error().fields) {
        fe.path = "spec.trialTemplate.trialSpec." + fe.path;
        diag_.refuse(std::move(fe));
      }
      if (converted.error().fields.empty()) {
        diag_.refuse(field_invalid("spec.trialTemplate.trialSpec", json::value(nullptr),
                                   converted.error().message));
      }
      return;
    }
    for (const auto& w : converted->warnings) {
      diag_.warn("spec.trialTemplate.trialSpec", json::value(nullptr), w);
    }
    for (auto& o : converted->objects) {
      const auto* obj = o.if_object();
      if (obj != nullptr && find_string(*obj, "kind").value_or("") == kTrainJobKind) {
        auto decoded = decode_train_job(o);
        if (decoded) job_.spec.train_job_template.spec = std::move(decoded->object.spec);
      } else {
        objects.push_back(std::move(o));
      }
    }
  }

  void trial_template(std::vector<json::value>& objects) {
    const auto* tmpl = find_object(*spec_, "trialTemplate");
    if (tmpl == nullptr) {
      diag_.refuse(field_required("spec.trialTemplate", ""));
      return;
    }
    for (const auto& kv : *tmpl) {
      const std::string key(kv.key());
      if (key == "trialSpec" || key == "configMap" || key == "trialParameters" ||
          key == "primaryContainerName") {
        continue;
      }
      diag_.warn("spec.trialTemplate." + key, kv.value(),
                 "has no OptimizationJob equivalent; the TrainJob's Complete/Failed conditions "
                 "decide a trial");
    }
    auto trial_spec = substituted_trial_spec(*tmpl);
    if (!trial_spec) return;
    template_metadata(*trial_spec);
    const std::string api = find_string(*trial_spec, "apiVersion").value_or("");
    const std::string kind = find_string(*trial_spec, "kind").value_or("");
    if (api == kApiVersion && kind == kTrainJobKind) {
      train_job_trial(*trial_spec);
    } else if (api == "batch/v1" && kind == "Job") {
      job_trial(*trial_spec, *tmpl, objects);
    } else if (is_convertible(api, kind) && api != "kubeflow.org/v1beta1") {
      v1_trial(*trial_spec, objects);
    } else {
      diag_.refuse(field_not_supported("spec.trialTemplate.trialSpec.kind",
                                       json::value(kind.c_str()),
                                       {"TrainJob", "Job", "PyTorchJob", "TFJob", "MPIJob",
                                        "XGBoostJob", "JAXJob", "PaddleJob"}));
    }
    if (tmpl->contains("primaryContainerName") && !(api == "batch/v1" && kind == "Job")) {
      diag_.warn("spec.trialTemplate.primaryContainerName", tmpl->at("primaryContainerName"),
                 "has no OptimizationJob equivalent; the trainer container is the trial's");
    }
  }

  const json::object& exp_;
  const json::object* spec_ = nullptr;
  std::string name_;
  std::string ns_;
  Diagnostics diag_;
  const Options& options_;
  OptimizationJob job_;
  bool grid_ = false;
};

}  // namespace

Result<Conversion> convert_experiment(const json::object& experiment, const Options& options) {
  return ExperimentConverter(experiment, options).run();
}

}  // namespace trainer::convert::detail
