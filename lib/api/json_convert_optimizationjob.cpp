// SPDX-License-Identifier: Apache-2.0
//
// OptimizationJob <-> JSON, field for field with upstream's `optimizationjob_types.go` (JSON
// names and Go struct order). `trainJobTemplate.spec` goes through the TrainJobSpec converters.
#include "api/json_convert_metadata.hpp"
#include "api/json_convert_trainjob.hpp"
#include "trainer/codec.hpp"

#include <utility>

namespace trainer {
namespace detail {

namespace json = boost::json;

namespace {

// The Go enums are strings; a value outside the CRD's `enum` cannot be held by the typed model,
// so it is refused while decoding with the API server's `Unsupported value` text.
template <class E>
void read_enum(DecodeContext& c, const json::value& v, const std::string& path, E& out,
               const std::vector<std::pair<std::string, E>>& values) {
  if (c.failed() || v.is_null()) return;
  if (!v.is_string()) {
    c.type_error(path, v, "expected string");
    return;
  }
  for (const auto& [text, value] : values) {
    if (v.get_string() == text) {
      out = value;
      return;
    }
  }
  std::vector<std::string> allowed;
  for (const auto& kv : values) allowed.push_back(kv.first);
  FieldError fe = field_not_supported(path, v, allowed);
  Error e(ErrorCode::kParse, fe.to_string());
  e.fields.push_back(std::move(fe));
  c.fail(std::move(e));
}

// Upstream's enum order (`+kubebuilder:validation:Enum=Maximize;Minimize`, `Int;Float`).
const std::vector<std::pair<std::string, ObjectiveDirection>>& direction_values() {
  static const std::vector<std::pair<std::string, ObjectiveDirection>> v{
      {"Maximize", ObjectiveDirection::kMaximize}, {"Minimize", ObjectiveDirection::kMinimize}};
  return v;
}

const std::vector<std::pair<std::string, ParameterType>>& parameter_type_values() {
  static const std::vector<std::pair<std::string, ParameterType>> v{
      {"Int", ParameterType::kInt}, {"Float", ParameterType::kFloat}};
  return v;
}

template <class E>
std::string enum_text(E e, const std::vector<std::pair<std::string, E>>& values) {
  for (const auto& [text, value] : values) {
    if (value == e) return text;
  }
  return {};
}

}  // namespace

// ---- decoding --------------------------------------------------------------------------------

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                ObjectiveDirection& out) {
  read_enum(c, v, path, out, direction_values());
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                ParameterType& out) {
  read_enum(c, v, path, out, parameter_type_values());
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path, Objective& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("metric", out.metric) || m("direction", out.direction);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                RandomSearch& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) { return m("seed", out.seed); });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path, GridSearch&) {
  read_fields(c, v, path, [](const FieldMatch&) { return false; });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                SearchAlgorithm& out) {
  read_fields(c, v, path,
              [&](const FieldMatch& m) { return m("random", out.random) || m("grid", out.grid); });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                RangeSearchSpace& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("min", out.min) || m("max", out.max) || m("type", out.type);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                CategoricalSearchSpace& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) { return m("choices", out.choices); });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path, SearchSpace& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("uniform", out.uniform) || m("logUniform", out.log_uniform) ||
           m("categorical", out.categorical);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                OptimizationParameter& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("name", out.name) || m("searchSpace", out.search_space);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                TrainJobTemplate& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("metadata", out.metadata) || m("spec", out.spec);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                OptimizationJobSpec& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("objectives", out.objectives) || m("searchAlgorithm", out.search_algorithm) ||
           m("parameters", out.parameters) || m("numTrials", out.num_trials) ||
           m("parallelTrials", out.parallel_trials) ||
           m("trainJobTemplate", out.train_job_template);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                ParameterAssignment& out) {
  read_fields(c, v, path,
              [&](const FieldMatch& m) { return m("name", out.name) || m("value", out.value); });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                OptimizationResult& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("trainJobName", out.train_job_name) || m("parameters", out.parameters);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                OptimizationJobStatus& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("conditions", out.conditions) || m("result", out.result);
  });
}

// ---- encoding --------------------------------------------------------------------------------

json::value to_value(Enc, ObjectiveDirection d) {
  return json::value(json::string(enum_text(d, direction_values())));
}

json::value to_value(Enc, ParameterType t) {
  return json::value(json::string(enum_text(t, parameter_type_values())));
}

json::value to_value(Enc, const Objective& o) {
  json::object out;
  put_nonempty(out, "metric", o.metric);
  put(out, "direction", o.direction);
  return json::value(std::move(out));
}

json::value to_value(Enc, const RandomSearch& r) {
  json::object out;
  put(out, "seed", r.seed);
  return json::value(std::move(out));
}

json::value to_value(Enc, const GridSearch&) {
  return json::value(json::object());
}

json::value to_value(Enc, const SearchAlgorithm& a) {
  json::object out;
  put(out, "random", a.random);
  put(out, "grid", a.grid);
  return json::value(std::move(out));
}

json::value to_value(Enc, const RangeSearchSpace& r) {
  json::object out;
  put_nonempty(out, "min", r.min);
  put_nonempty(out, "max", r.max);
  put(out, "type", r.type);
  return json::value(std::move(out));
}

json::value to_value(Enc, const CategoricalSearchSpace& s) {
  json::object out;
  put_nonempty(out, "choices", s.choices);
  return json::value(std::move(out));
}

json::value to_value(Enc, const SearchSpace& s) {
  json::object out;
  put(out, "uniform", s.uniform);
  put(out, "logUniform", s.log_uniform);
  put(out, "categorical", s.categorical);
  return json::value(std::move(out));
}

json::value to_value(Enc, const OptimizationParameter& p) {
  json::object out;
  put_nonempty(out, "name", p.name);
  out.emplace("searchSpace", to_value(Enc{}, p.search_space));
  return json::value(std::move(out));
}

json::value to_value(Enc, const TrainJobTemplate& t) {
  json::object out;
  if (!is_empty(t.metadata)) out.emplace("metadata", to_value(Enc{}, t.metadata));
  json::value spec = to_value(Enc{}, t.spec);
  // `omitzero`: an all-empty spec is left out.
  if (!spec.get_object().empty()) out.emplace("spec", std::move(spec));
  return json::value(std::move(out));
}

json::value to_value(Enc, const OptimizationJobSpec& s) {
  json::object out;
  put_nonempty(out, "objectives", s.objectives);
  put(out, "searchAlgorithm", s.search_algorithm);
  put_nonempty(out, "parameters", s.parameters);
  put(out, "numTrials", s.num_trials);
  put(out, "parallelTrials", s.parallel_trials);
  json::value tmpl = to_value(Enc{}, s.train_job_template);
  if (!tmpl.get_object().empty()) out.emplace("trainJobTemplate", std::move(tmpl));
  return json::value(std::move(out));
}

json::value to_value(Enc, const ParameterAssignment& p) {
  json::object out;
  put_nonempty(out, "name", p.name);
  put_nonempty(out, "value", p.value);
  return json::value(std::move(out));
}

json::value to_value(Enc, const OptimizationResult& r) {
  json::object out;
  put_nonempty(out, "trainJobName", r.train_job_name);
  put_nonempty(out, "parameters", r.parameters);
  return json::value(std::move(out));
}

json::value to_value(Enc, const OptimizationJobStatus& s) {
  json::object out;
  put_nonempty(out, "conditions", s.conditions);
  put(out, "result", s.result);
  return json::value(std::move(out));
}

}  // namespace detail

Result<Decoded<OptimizationJob>> decode_optimization_job(const boost::json::value& doc) {
  detail::DecodeContext c;
  OptimizationJob job;
  if (detail::check_type_meta(c, doc, kOptimizationJobKind)) {
    detail::read_fields(c, doc, "", [&](const detail::FieldMatch& m) {
      return m("apiVersion", job.api_version) || m("kind", job.kind) ||
             m("metadata", job.metadata) || m("spec", job.spec) || m("status", job.status);
    });
  }
  if (c.error()) return tl::unexpected<Error>(*c.error());
  return Decoded<OptimizationJob>{std::move(job), c.take_warnings()};
}

boost::json::value to_json(const OptimizationJob& job) {
  boost::json::object o = detail::type_and_object_meta(job.api_version, job.kind, job.metadata);
  o.emplace("spec", detail::to_value(detail::Enc{}, job.spec));
  detail::put(o, "status", job.status);
  return boost::json::value(std::move(o));
}

}  // namespace trainer
