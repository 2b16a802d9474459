// SPDX-License-Identifier: Apache-2.0
#include "runtimes/builtin_inputs.hpp"

#include "trainer/admission.hpp"
#include "trainer/codec.hpp"
#include "trainer/json_path.hpp"
#include "trainer/model.hpp"
#include "trainer/runtimes.hpp"

#include <functional>
#include <set>
#include <string>

namespace trainer::detail {
namespace {

namespace json = boost::json;

// Calls `fn` with every object among `documents`, descending into `v1` Lists.
void for_each_object(const std::vector<json::value>& documents,
                     const std::function<void(const json::object&)>& fn) {
  for (const auto& doc : documents) {
    if (!doc.is_object()) continue;
    const auto& obj = doc.get_object();
    if (find_string(obj, "apiVersion").value_or("") == "v1" &&
        find_string(obj, "kind").value_or("") == "List") {
      if (const auto* items = find_array(obj, "items")) {
        for (const auto& item : *items) {
          if (item.is_object()) fn(item.get_object());
        }
      }
      continue;
    }
    fn(obj);
  }
}

// How admission sorts `obj` (trainer_kind, the one place that knows the Trainer kinds).
TrainerKind kind_of(const json::object& obj) {
  return trainer_kind(find_string(obj, "apiVersion").value_or(""),
                      find_string(obj, "kind").value_or(""));
}

}  // namespace

Result<void> add_referenced_builtin_runtimes(std::vector<json::value>& documents) {
  std::set<std::string> given;
  std::set<std::string> wanted;
  for_each_object(documents, [&](const json::object& obj) {
    if (kind_of(obj) == TrainerKind::kClusterTrainingRuntime) {
      if (const auto* meta = find_object(obj, {"metadata"})) {
        given.insert(find_string(*meta, "name").value_or(""));
      }
    } else if (kind_of(obj) == TrainerKind::kTrainJob ||
               kind_of(obj) == TrainerKind::kOptimizationJob) {
      // An OptimizationJob's trials reference the runtime of its trainJobTemplate.
      const auto* ref = kind_of(obj) == TrainerKind::kTrainJob
                            ? find_object(obj, {"spec", "runtimeRef"})
                            : find_object(obj, {"spec", "trainJobTemplate", "spec", "runtimeRef"});
      if (ref == nullptr) return;
      // The CRD defaults of runtimeRef: apiGroup trainer.kubeflow.org, kind ClusterTrainingRuntime.
      if (find_string(*ref, "apiGroup").value_or(kGroup) != kGroup) return;
      if (find_string(*ref, "kind").value_or(kClusterTrainingRuntimeKind) !=
          kClusterTrainingRuntimeKind) {
        return;
      }
      if (auto name = find_string(*ref, "name")) wanted.insert(*name);
    }
  });
  for (const auto& name : wanted) {
    if (given.count(name) != 0) continue;
    const auto yaml = find_builtin_runtime(name);
    if (!yaml) continue;
    auto parsed = parse_documents(*yaml);
    if (!parsed) return tl::unexpected(parsed.error());
    for (auto& doc : *parsed) documents.push_back(std::move(doc));
  }
  return {};
}

std::string builtin_runtime_hint(const RuntimeRef& ref, bool for_cluster) {
  if (ref.api_group.value_or(kGroup) != kGroup ||
      ref.kind.value_or(kClusterTrainingRuntimeKind) != kClusterTrainingRuntimeKind ||
      !find_builtin_runtime(ref.name)) {
    return {};
  }
  if (for_cluster) {
    return "; \"" + ref.name +
           "\" is a built-in ClusterTrainingRuntime of libtrainer: install it in the cluster "
           "first (`trainerctl runtimes " +
           ref.name + "` prints it)";
  }
  return "; \"" + ref.name +
         "\" is a built-in ClusterTrainingRuntime of libtrainer: add --builtin-runtimes "
         "(trainerctl) or set the builtin_runtimes option to use it";
}

}  // namespace trainer::detail
