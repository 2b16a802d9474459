// SPDX-License-Identifier: Apache-2.0
//
// fuzz_plugin_reply: what a plugin from outside the library answers is untrusted. An in-process
// C ABI plugin (trainer_plugin_descriptor) replies with the fuzz input, after its first byte,
// in the phase that byte selects (validate, enforceMLPolicy, enforcePodGroupPolicy,
// enforcePodSpec, preBuildSync, build), and a fixed TrainJob on a runtime labelled with the
// plugin's framework is rendered through render_documents with that plugin added. Checks: no
// crash; every error and warning text is valid UTF-8; a render that succeeds still encodes as
// YAML that parses back, and every object it holds stays inside the TrainJob (a namespaced kind
// in its namespace, controlled by it: docs/plugins.md, "What a plugin may change").
#include "framework/plugin_confinement.hpp"
#include "fuzz_common.hpp"
#include "plugin/plugin_internal.hpp"
#include "trainer.h"
#include "trainer/json_path.hpp"
#include "trainer/plugin.hpp"
#include "trainer/render.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

constexpr const char* kInput = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: fuzzfw
  labels:
    trainer.kubeflow.org/framework: fuzzfw
spec:
  mlPolicy:
    numNodes: 2
    torch: {}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: pytorch:2.5
                      env:
                        - name: BASE
                          value: "1"
                      ports:
                        - containerPort: 29500
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: fuzz
spec:
  runtimeRef:
    name: fuzzfw
    kind: TrainingRuntime
)";

/// The reply of the current input, for the phase its first byte names.
struct Reply {
  int phase = 0;
  std::string text;
};
thread_local Reply current;

template <int Phase>
trainer_status answer(void*, const trainer_plugin_request*, trainer_plugin_reply* reply) {
  if (current.phase != Phase) return TRAINER_OK;
  // Through the host table, as a loaded plugin answers (this target links the C++ core only).
  return trainer::detail::plugin_host_table()->reply_set(reply, current.text.data(),
                                                         current.text.size());
}

const trainer::Framework& framework() {
  static const trainer::Framework fw = [] {
    trainer_plugin_descriptor desc{};
    desc.abi_version = TRAINER_PLUGIN_ABI_VERSION;
    desc.name = "Fuzz";
    desc.validate = &answer<0>;
    desc.enforce_ml_policy = &answer<1>;
    desc.enforce_pod_group_policy = &answer<2>;
    desc.enforce_pod_spec = &answer<3>;
    desc.pre_build_sync = &answer<4>;
    desc.build = &answer<5>;
    auto plugin = trainer::plugin_from_descriptor(desc);
    if (!plugin) trainer::fuzz::fail_check("plugin_from_descriptor", plugin.error().message);
    std::vector<std::shared_ptr<trainer::Plugin>> extra;
    extra.push_back(std::move(*plugin));
    auto built = trainer::Framework::with_plugins({}, std::move(extra));
    if (!built) trainer::fuzz::fail_check("Framework::with_plugins", built.error().message);
    return std::move(*built);
  }();
  return fw;
}

trainer::RenderContext context() {
  trainer::RenderContext ctx;
  ctx.train_job_uid = "3f0c9a6e-5b1d-4c2e-9a7f-0d1e2c3b4a59";
  ctx.now = [] { return std::string("2025-01-01T00:00:00Z"); };
  return ctx;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  (void)framework();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  current.phase = data[0] % 6;
  current.text.assign(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto docs = trainer::parse_documents(kInput);
  if (!docs) trainer::fuzz::fail_check("the fixed input does not parse", docs.error().message);
  trainer::RenderDocumentsOptions options;
  options.framework = &framework();
  options.on_warning = [](std::string_view w) { trainer::fuzz::check_utf8("warning", w); };
  auto out = trainer::render_documents(std::move(*docs), context(), options);
  if (!out) {
    const trainer::Error& e = out.error();
    trainer::fuzz::check_utf8("error message", e.message);
    for (const auto& field : e.fields) trainer::fuzz::check_utf8("field error", field.to_string());
    return 0;
  }
  for (const auto& object : out->objects) {
    const auto& o = object.as_object();
    const std::string api_version = trainer::find_string(o, "apiVersion").value_or("");
    const std::string kind = trainer::find_string(o, "kind").value_or("");
    const auto* owners = o.at("metadata").as_object().if_contains("ownerReferences");
    bool controlled = false;
    for (const auto& ref : owners != nullptr ? owners->as_array() : boost::json::array()) {
      const auto* controller = ref.as_object().if_contains("controller");
      if (controller == nullptr || !controller->is_bool() || !controller->get_bool()) continue;
      controlled = ref.as_object().at("uid") == "3f0c9a6e-5b1d-4c2e-9a7f-0d1e2c3b4a59" &&
                   ref.as_object().at("kind") == "TrainJob" && ref.as_object().at("name") == "fuzz";
    }
    if (!trainer::detail::known_namespaced_kind(api_version, kind) ||
        trainer::object_namespace(o) != "default" || !controlled) {
      trainer::fuzz::fail_check("a rendered object is outside its TrainJob",
                                api_version + " " + kind + " " + trainer::object_name(o));
    }
  }
  const std::string yaml = trainer::encode_yaml_stream(out->objects);
  trainer::fuzz::check_utf8("rendered YAML", yaml);
  auto back = trainer::parse_documents(yaml);
  if (!back || back->size() != out->objects.size()) {
    trainer::fuzz::fail_check("rendered YAML does not parse back to its objects", yaml);
  }
  return 0;
}
