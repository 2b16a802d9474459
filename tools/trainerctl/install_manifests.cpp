// SPDX-License-Identifier: Apache-2.0
#include "install_manifests.hpp"

#include "install_manifests_data.hpp"

#include "trainer.h"
#include "trainer/codec.hpp"
#include "trainer/runtimes.hpp"

#include <boost/json/array.hpp>

namespace trainerctl {
namespace {

namespace json = boost::json;

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

// Every reference to the operator namespace in `object` set to `ns`.
void place_in(json::object& object, const std::string& ns) {
  auto& meta = object["metadata"].as_object();
  if (object.at("kind") == "Namespace") meta["name"] = ns;
  if (meta.contains("namespace")) meta["namespace"] = ns;
  if (auto* subjects = object.if_contains("subjects"); subjects != nullptr) {
    for (auto& subject : subjects->as_array()) {
      auto& s = subject.as_object();
      if (s.at("kind") == "ServiceAccount") s["namespace"] = ns;
    }
  }
  if (auto* webhooks = object.if_contains("webhooks"); webhooks != nullptr) {
    for (auto& webhook : webhooks->as_array()) {
      webhook.at("clientConfig").at("service").as_object()["namespace"] = ns;
    }
  }
}

// The controller's command line in the Deployment: upstream's manager settings (leader election,
// the webhook port, the operator namespace) and the requested gates.
json::array controller_args(const InstallSettings& settings) {
  json::array args{"--leader-elect", "--leader-election-namespace=" + settings.namespace_,
                   "--operator-namespace=" + settings.namespace_, "--webhook-port=9443"};
  if (!settings.feature_gates.empty()) {
    std::string gates;
    for (const auto& gate : settings.feature_gates) gates += (gates.empty() ? "" : ",") + gate;
    args.emplace_back("--feature-gates=" + gates);
  }
  return args;
}

}  // namespace

trainer::Result<InstallObjects> install_objects(const InstallSettings& settings) {
  InstallObjects out;
  for (const auto& manifest : install_manifest_texts()) {
    const bool deployment = manifest.name.find("deployment") != std::string::npos;
    if (deployment && settings.image.empty()) continue;
    std::string text = manifest.text;
    replace_all(text, "@VERSION@", TRAINER_VERSION_STRING);
    replace_all(text, "@IMAGE@", settings.image);
    auto documents = trainer::parse_documents(text);
    if (!documents) {
      return trainer::fail(trainer::ErrorCode::kInternal,
                           "install manifest " + manifest.name + ": " + documents.error().message);
    }
    for (auto& document : *documents) {
      auto& object = document.as_object();
      place_in(object, settings.namespace_);
      if (deployment) {
        auto& container = object["spec"].at("template").at("spec").at("containers").at(0);
        container.as_object()["args"] = controller_args(settings);
      }
      if (object.at("kind") == "CustomResourceDefinition") {
        out.crds.push_back(std::move(object));
      } else {
        out.rest.push_back(std::move(object));
      }
    }
    // The built-in runtimes follow the RBAC, before the webhooks that would judge them.
    if (manifest.name.rfind("20-", 0) == 0) {
      for (const auto& runtime : trainer::builtin_runtimes()) {
        auto parsed = trainer::parse_documents(runtime.yaml);
        if (!parsed) return tl::unexpected(std::move(parsed.error()));
        for (auto& doc : *parsed) {
          // As upstream's overlays/runtimes: validated ahead of time, so the runtime webhooks
          // pass them by.
          auto& labels = doc.as_object()["metadata"].as_object()["labels"];
          if (!labels.is_object()) labels = json::object{};
          labels.as_object()["trainer.kubeflow.org/webhook-validation"] = "disabled";
          out.rest.push_back(std::move(doc.as_object()));
        }
      }
    }
  }
  return out;
}

}  // namespace trainerctl
