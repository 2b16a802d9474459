// SPDX-License-Identifier: Apache-2.0
//
// Inputs and helpers shared by the plugin tests: a runtime labelled for the C test plugin
// `TestFw`, TrainJobs on it, and plugins loaded from the test modules.
#pragma once

#include "trainer/codec.hpp"
#include "trainer/plugin.hpp"
#include "trainer/render.hpp"

#include <boost/json/value.hpp>
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

namespace plugintest {

inline std::string runtime_yaml(const std::string& framework_label = "testfw") {
  return R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: testfw-runtime
  namespace: default
  labels: {trainer.kubeflow.org/framework: )" +
         framework_label + R"(}
spec:
  mlPolicy: {numNodes: 1}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              template:
                spec:
                  containers: [{name: node, image: example.com/testfw:1}]
)";
}

inline std::string job_yaml(int nodes = 2) {
  return R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j, namespace: default}
spec:
  runtimeRef: {name: testfw-runtime, kind: TrainingRuntime}
  trainer: {numNodes: )" +
         std::to_string(nodes) + "}\n";
}

inline std::vector<boost::json::value> docs(const std::string& yaml) {
  auto parsed = trainer::parse_documents(yaml);
  REQUIRE(parsed);
  return *parsed;
}

inline std::shared_ptr<trainer::Plugin> load(const std::string& path) {
  auto plugin = trainer::load_plugin(path);
  INFO((plugin ? std::string() : plugin.error().message));
  REQUIRE(plugin);
  return std::move(*plugin);
}

inline std::shared_ptr<const trainer::Framework> framework_of(
    std::vector<std::shared_ptr<trainer::Plugin>> plugins) {
  auto fw = trainer::Framework::with_plugins({}, std::move(plugins));
  INFO((fw ? std::string() : fw.error().message));
  REQUIRE(fw);
  return std::make_shared<const trainer::Framework>(std::move(*fw));
}

inline trainer::RenderContext context() {
  trainer::RenderContext ctx;
  ctx.train_job_uid = "uid-1";
  return ctx;
}

inline trainer::Result<trainer::RenderOutput> render(const std::string& yaml,
                                                     const trainer::Framework* fw) {
  trainer::RenderDocumentsOptions options;
  options.framework = fw;
  return trainer::render_documents(docs(yaml), context(), options);
}

inline const boost::json::value* find_kind(const std::vector<boost::json::value>& objects,
                                           std::string_view kind) {
  for (const auto& o : objects) {
    if (o.at("kind").as_string() == kind) return &o;
  }
  return nullptr;
}

}  // namespace plugintest
