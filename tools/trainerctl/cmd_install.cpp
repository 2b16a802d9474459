// SPDX-License-Identifier: Apache-2.0
// `trainerctl install` / `trainerctl uninstall`: upstream's manifests' equivalent in one command
// (install_manifests.hpp), server-side applied in dependency order; the CRDs are waited for
// before the objects of their kinds.
#include "cluster_flags.hpp"
#include "commands.hpp"
#include "install_manifests.hpp"
#include "output.hpp"

#include "trainer/kube.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <cstdio>
#include <thread>
#include <utility>

namespace trainerctl {
namespace {

namespace json = boost::json;
namespace kube = trainer::kube;

constexpr const char* kFieldManager = "trainerctl-install";
constexpr std::chrono::seconds kEstablishedTimeout{60};

std::string name_of(const json::object& object) {
  return std::string(object.at("metadata").at("name").as_string());
}

InstallSettings settings_of(const Parsed& args) {
  InstallSettings settings;
  if (args.given("namespace")) settings.namespace_ = args.value("namespace");
  settings.image = args.value("image");
  settings.feature_gates = args.values("feature-gates");
  return settings;
}

// Every object's resource first, as kubectl maps all before it sends any.
trainer::Result<std::vector<kube::Resource>> resources_of(
    kube::Client& client, const std::vector<json::object>& objects) {
  std::vector<kube::Resource> resources;
  for (const auto& object : objects) {
    auto resource =
        client.resource_for(object.at("apiVersion").as_string(), object.at("kind").as_string());
    if (!resource) return tl::unexpected(std::move(resource.error()));
    resources.push_back(std::move(*resource));
  }
  return resources;
}

trainer::Result<void> apply_all(kube::Client& client, const std::vector<json::object>& objects) {
  auto resources = resources_of(client, objects);
  if (!resources) return tl::unexpected(std::move(resources.error()));
  kube::ApplyOptions apply;
  apply.field_manager = kFieldManager;
  apply.force =
      true;  // an install owns what it installs, as `kubectl apply --server-side --force-conflicts`
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const auto& resource = (*resources)[i];
    std::string ns;
    if (resource.namespaced)
      ns = std::string(objects[i].at("metadata").at("namespace").as_string());
    auto applied = client.apply(resource, ns, objects[i], apply);
    if (!applied) return tl::unexpected(std::move(applied.error()));
    std::printf("%s/%s serverside-applied\n", resource.kind_group().c_str(),
                name_of(objects[i]).c_str());
    std::fflush(stdout);
  }
  return {};
}

bool established(const json::object& crd) {
  const auto* status = crd.if_contains("status");
  if (status == nullptr || !status->is_object()) return false;
  const auto* conditions = status->as_object().if_contains("conditions");
  if (conditions == nullptr || !conditions->is_array()) return false;
  for (const auto& c : conditions->as_array()) {
    if (c.as_object().if_contains("type") != nullptr && c.at("type") == "Established" &&
        c.at("status") == "True") {
      return true;
    }
  }
  return false;
}

// Until every CRD is Established (served), as `kubectl wait --for condition=established`.
trainer::Result<void> wait_established(kube::Client& client,
                                       const std::vector<json::object>& crds) {
  auto resource = client.resource_for("apiextensions.k8s.io/v1", "CustomResourceDefinition");
  if (!resource) return tl::unexpected(std::move(resource.error()));
  const auto deadline = std::chrono::steady_clock::now() + kEstablishedTimeout;
  for (const auto& crd : crds) {
    for (;;) {
      auto current = client.get(*resource, "", name_of(crd));
      if (!current) return tl::unexpected(std::move(current.error()));
      if (established(*current)) break;
      if (std::chrono::steady_clock::now() > deadline) {
        return trainer::fail(
            trainer::ErrorCode::kTimeout,
            "timed out waiting for the condition on customresourcedefinitions/" + name_of(crd));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  return {};
}

int run_install(const Parsed& args) {
  const auto format = parse_output_format(args.value("output"));
  if (!format) {
    std::fprintf(stderr, "error: --output must be yaml or json\n");
    return kExitUsage;
  }
  const bool dry_run = args.given("dry-run");
  if (dry_run && args.value("dry-run") != "client") {
    std::fprintf(stderr, "error: --dry-run takes client only (nothing is sent)\n");
    return kExitUsage;
  }
  if (*format != OutputFormat::kNone && !dry_run) {
    std::fprintf(stderr, "error: --output needs --dry-run=client\n");
    return kExitUsage;
  }
  auto objects = install_objects(settings_of(args));
  if (!objects) return report_error(objects.error());
  if (dry_run) {
    std::vector<json::value> documents;
    for (const auto& o : objects->crds) documents.emplace_back(o);
    for (const auto& o : objects->rest) documents.emplace_back(o);
    if (*format == OutputFormat::kNone) {
      for (const auto& d : documents) {
        std::printf("%s/%s (dry run)\n", std::string(d.at("kind").as_string()).c_str(),
                    name_of(d.as_object()).c_str());
      }
    } else {
      print_documents(documents, *format);
    }
    return kExitOk;
  }
  auto client = connect(args);
  if (!client) return report_cluster_error(client.error());
  if (auto applied = apply_all(*client, objects->crds); !applied) {
    return report_cluster_error(applied.error());
  }
  if (auto waited = wait_established(*client, objects->crds); !waited) {
    return report_cluster_error(waited.error());
  }
  if (auto applied = apply_all(*client, objects->rest); !applied) {
    return report_cluster_error(applied.error());
  }
  return kExitOk;
}

int run_uninstall(const Parsed& args) {
  auto settings = settings_of(args);
  settings.image = "-";  // whether or not install ran the controller, its Deployment goes
  auto objects = install_objects(settings);
  if (!objects) return report_error(objects.error());
  auto client = connect(args);
  if (!client) return report_cluster_error(client.error());
  // Reverse order: the controller and its webhooks go before what they serve; the namespace
  // and the CRDs (and with them every TrainJob) last, as `kubectl delete -k` would.
  std::vector<json::object> order(objects->rest.rbegin(), objects->rest.rend());
  if (!args.enabled("keep-crds")) {
    order.insert(order.end(), objects->crds.rbegin(), objects->crds.rend());
  }
  for (const auto& object : order) {
    auto resource =
        client->resource_for(object.at("apiVersion").as_string(), object.at("kind").as_string());
    if (!resource) {
      if (resource.error().code == trainer::ErrorCode::kNotFound) continue;  // CRD gone already
      return report_cluster_error(resource.error());
    }
    std::string ns;
    if (resource->namespaced) ns = std::string(object.at("metadata").at("namespace").as_string());
    auto removed = client->remove(*resource, ns, name_of(object));
    if (!removed) {
      if (removed.error().code == trainer::ErrorCode::kNotFound) continue;
      return report_cluster_error(removed.error());
    }
    std::printf("%s \"%s\" deleted\n", resource->kind_group().c_str(), name_of(object).c_str());
    std::fflush(stdout);
  }
  return kExitOk;
}

std::vector<Flag> namespace_help(std::vector<Flag> flags) {
  for (auto& flag : flags) {
    if (flag.name == "namespace") {
      flag.help =
          "the operator namespace: the controller, its Service and certificate, the "
          "SDK's public ConfigMap (default: kubeflow-system)";
    }
  }
  return flags;
}

}  // namespace

const Command& install_command() {
  static const Command command{
      "install",
      "install Kubeflow Trainer's API and libtrainer's controller into a cluster",
      "Server-side applies (field manager trainerctl-install) what upstream's manifests install:\n"
      "the Trainer CRDs, the built-in ClusterTrainingRuntimes, the kubeflow-trainer-public\n"
      "ConfigMap, the controller's ServiceAccount and RBAC, the webhook Service and\n"
      "configurations, and with --image a Deployment running `trainerctl controller`.\n"
      "Running it again changes nothing. JobSet is not installed (docs/controller.md).",
      {},
      namespace_help(with_cluster_flags(
          {{"image", '\0', "IMAGE", "also run the controller: a Deployment of this image"},
           {"feature-gates",
            '\0',
            "NAME=BOOL,...",
            "feature gates of the controller's Deployment, e.g. TrainJobStatus=true",
            {},
            {},
            false,
            true},
           {"dry-run", '\0', "client",
            "send nothing: list (or with -o print) what would be applied"},
           {"output",
            'o',
            "FORMAT",
            "with --dry-run=client: print the objects",
            {"yaml", "json"}}})),
      run_install};
  return command;
}

const Command& uninstall_command() {
  static const Command command{
      "uninstall",
      "remove what `trainerctl install` installed",
      "Deletes the objects `trainerctl install` applies, in reverse order; what is already gone\n"
      "is skipped. The CRDs go too, and with them every TrainJob, runtime and OptimizationJob\n"
      "(as `kubectl delete -k` of upstream's manifests); --keep-crds keeps them.",
      {},
      namespace_help(with_cluster_flags(
          {{"keep-crds", '\0', "", "keep the CRDs and the objects of their kinds"}})),
      run_uninstall};
  return command;
}

}  // namespace trainerctl
