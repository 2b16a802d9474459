// SPDX-License-Identifier: Apache-2.0
//
// Helpers of the conversion tests: read a fixture of tests/convert/data, convert it, render the
// converted objects, and find a replicated job's pod env in the rendered JobSet.
#pragma once

#include "trainer/codec.hpp"
#include "trainer/convert.hpp"
#include "trainer/render.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace convert_test {

inline boost::json::value fixture(const std::string& name) {
  std::ifstream in("tests/convert/data/" + name);
  std::stringstream text;
  text << in.rdbuf();
  auto docs = trainer::parse_documents(text.str());
  if (!docs || docs->size() != 1) throw std::runtime_error("cannot read fixture " + name);
  return docs->front();
}

/// Renders the converted objects in the TrainJob's namespace, with libtrainer's built-in
/// runtimes available (what a conversion to torch-distributed references).
inline trainer::Result<trainer::RenderOutput> render(const trainer::convert::Conversion& c) {
  trainer::RenderDocumentsOptions options;
  options.builtin_runtimes = true;
  options.namespace_ = std::string(c.objects.back().at("metadata").at("namespace").as_string());
  return trainer::render_documents(c.objects, trainer::system_render_context("uid-1"), options);
}

inline const boost::json::object* jobset(const trainer::RenderOutput& out) {
  for (const auto& o : out.objects) {
    if (o.at("kind") == "JobSet") return &o.get_object();
  }
  return nullptr;
}

inline const boost::json::object* replicated_job(const boost::json::object& js,
                                                 const std::string& name) {
  for (const auto& r : js.at("spec").at("replicatedJobs").as_array()) {
    if (r.at("name") == name.c_str()) return &r.get_object();
  }
  return nullptr;
}

inline const boost::json::object& pod_spec(const boost::json::object& rjob) {
  return rjob.at("template").at("spec").at("template").at("spec").as_object();
}

inline const boost::json::object* container(const boost::json::object& rjob,
                                            const std::string& name) {
  for (const auto& c : pod_spec(rjob).at("containers").as_array()) {
    if (c.at("name") == name.c_str()) return &c.get_object();
  }
  return nullptr;
}

/// An error's message and field errors, one per line (for INFO).
inline std::string text(const trainer::Error& e) {
  std::string out = e.message;
  for (const auto& f : e.fields) out += "\n" + f.to_string();
  return out;
}

/// Lines joined (for INFO).
inline std::string lines(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& l : list) out += l + "\n";
  return out;
}

/// The `value` of env `name`, or "<unset>"; "<fieldRef path>" for a fieldRef.
inline std::string env(const boost::json::object& container, const std::string& name) {
  const auto* list = container.if_contains("env");
  if (list == nullptr) return "<unset>";
  for (const auto& e : list->as_array()) {
    if (e.at("name") != name.c_str()) continue;
    if (const auto* v = e.as_object().if_contains("value")) return std::string(v->as_string());
    if (const auto* f = e.as_object().if_contains("valueFrom")) {
      return "<" + std::string(f->at("fieldRef").at("fieldPath").as_string()) + ">";
    }
    return "";
  }
  return "<unset>";
}

/// The position of env `name` in the container's list (-1 when absent).
inline int env_index(const boost::json::object& container, const std::string& name) {
  const auto& list = container.at("env").as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].at("name") == name.c_str()) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace convert_test
