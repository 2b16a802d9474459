// SPDX-License-Identifier: Apache-2.0
// `trainerctl controller`: libtrainer as the TrainJob controller (trainer::controller::Controller)
// in the foreground: one log line per reconcile on stderr, SIGTERM/SIGINT stop it gracefully,
// `--metrics-addr` serves its counters, `--once` reconciles what exists and exits.
#include "cluster_flags.hpp"
#include "commands.hpp"
#include "metrics_server.hpp"
#include "plugin_flags.hpp"
#include "stop_signals.hpp"

#include "trainer/controller.hpp"
#include "trainer/kube.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace trainerctl {
namespace {

namespace ctl = trainer::controller;

// RFC 3339 in UTC with milliseconds, the time of a log line.
std::string log_time() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + n, sizeof text - n, ".%03dZ", static_cast<int>(millis));
  return text;
}

// kubectl's text of an error, always starting with `error: ` or `Error from server`.
std::string error_text(const trainer::Error& error) {
  std::string text = trainer::kube::kubectl_text(error);
  if (text.rfind("error: ", 0) != 0 && text.rfind("Error from server", 0) != 0) {
    text = "error: " + text;
  }
  return text;
}

// `<time> trainjob=<ns/name>|optimizationjob=<ns/name> [skipped] applied=<ref,...|->
// conditions=<Type=Status/Reason,...|-> status=patched|unchanged [requeue-after=<N>ms] [error:
// ...|Error from server ...]`: one line per reconcile, fields in a fixed order so scripts can grep
// them.
std::string reconcile_line(const ctl::ReconcileResult& result, const trainer::Error* error) {
  // OptimizationJobs share the queue under `OptimizationJob:<ns/name>` keys.
  constexpr std::string_view kOptimization = "OptimizationJob:";
  std::string line = log_time();
  if (result.key.rfind(kOptimization, 0) == 0) {
    line += " optimizationjob=" + result.key.substr(kOptimization.size());
  } else {
    line += " trainjob=" + result.key;
  }
  if (result.skipped) line += " skipped";
  line += " applied=";
  if (result.applied.empty()) line += "-";
  for (std::size_t i = 0; i < result.applied.size(); ++i) {
    line += (i > 0 ? "," : "") + result.applied[i];
  }
  line += " conditions=";
  if (result.conditions.empty()) line += "-";
  for (std::size_t i = 0; i < result.conditions.size(); ++i) {
    const auto& c = result.conditions[i];
    line += (i > 0 ? "," : "") + c.type + "=" + c.status;
    if (!c.reason.empty()) line += "/" + c.reason;
  }
  line += result.status_patched ? " status=patched" : " status=unchanged";
  if (result.requeue_after) {
    line += " requeue-after=" + std::to_string(result.requeue_after->count()) + "ms";
  }
  // Last, unquoted: the text may hold quotes of its own (`trainingruntimes... "x" not found`).
  if (error != nullptr) line += " " + error_text(*error);
  return line + "\n";
}

// A whole number from 1 to `max`; nullopt otherwise.
std::optional<int> parse_count(const std::string& text, int max) {
  int n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n < 1 || n > max) {
    return std::nullopt;
  }
  return n;
}

// `--kube-api-qps`: requests per second, a number; 0 or negative turns the limit off.
std::optional<double> parse_qps(const std::string& text) {
  double qps = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), qps);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(qps)) {
    return std::nullopt;
  }
  return qps;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return kExitUsage;
}

// --webhook-port and --webhook-bind-address: the admission webhooks (0: not served).
std::optional<std::string> webhook_flags(const Parsed& args, ctl::ServingOptions& serving) {
  const std::string port = args.value("webhook-port");
  char* end = nullptr;
  const long value = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || end == nullptr || *end != '\0' || value < 0 || value > 65535) {
    return "invalid --webhook-port \"" + port + "\": a port from 0 (off) to 65535";
  }
  serving.webhook_port = static_cast<int>(value);
  serving.webhook_bind_address = args.value("webhook-bind-address");
  if (serving.webhook_bind_address.empty()) return "--webhook-bind-address must not be empty";
  return std::nullopt;
}

// --status-server-port and --status-server-bind-address: the TrainJobStatus progress endpoint,
// served while the TrainJobStatus gate is on (0: not served; the pods' URL then has no port).
std::optional<std::string> status_server_flags(const Parsed& args, ctl::ServingOptions& serving) {
  const std::string port = args.value("status-server-port");
  char* end = nullptr;
  const long value = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || end == nullptr || *end != '\0' || value < 0 || value > 65535) {
    return "invalid --status-server-port \"" + port + "\": a port from 0 (off) to 65535";
  }
  serving.status_server_port = static_cast<int>(value);
  serving.status_server_bind_address = args.value("status-server-bind-address");
  if (serving.status_server_bind_address.empty()) {
    return "--status-server-bind-address must not be empty";
  }
  return std::nullopt;
}

// --webhook-cert-dir, --webhook-service-name, --webhook-secret-name, --operator-namespace,
// --webhook-cert-hosts: the certificates of the webhook and status servers (h20-tls).
// An error message (usage) when a value is unusable.
std::optional<std::string> parse_certificate_flags(const Parsed& args,
                                                   ctl::ServingOptions& serving) {
  serving.cert_dir = args.value("webhook-cert-dir");
  if (args.given("webhook-service-name")) {
    serving.webhook_service_name = args.value("webhook-service-name");
    if (serving.webhook_service_name.empty()) return "--webhook-service-name must not be empty";
  }
  if (args.given("webhook-secret-name")) {
    serving.webhook_secret_name = args.value("webhook-secret-name");
    if (serving.webhook_secret_name.empty()) return "--webhook-secret-name must not be empty";
  }
  serving.operator_namespace = args.value("operator-namespace");
  serving.extra_cert_hosts.clear();
  for (const auto& list : args.values("webhook-cert-hosts")) {
    std::size_t start = 0;
    while (start <= list.size()) {
      const auto comma = list.find(',', start);
      const auto end = comma == std::string::npos ? list.size() : comma;
      const std::string host = list.substr(start, end - start);
      if (host.empty() || host.find_first_of(" \t\r\n") != std::string::npos) {
        return "invalid --webhook-cert-hosts \"" + list +
               "\": a comma-separated list of DNS names and IP addresses";
      }
      serving.extra_cert_hosts.push_back(host);
      start = end + 1;
    }
  }
  serving.log = [](const std::string& line) {
    std::fprintf(stderr, "%s %s\n", log_time().c_str(), line.c_str());
    std::fflush(stderr);
  };
  return std::nullopt;
}

int run_controller(const Parsed& args) {
  // Before any thread exists (the client's, the controller's): only the signal thread waits
  // for SIGTERM/SIGINT.
  StopSignals::block();

  ctl::ControllerOptions options;
  const auto workers = parse_count(args.value("workers"), 1024);
  if (!workers) {
    return usage_error("invalid --workers \"" + args.value("workers") +
                       "\": a number from 1 to 1024");
  }
  options.workers = *workers;
  const auto gates = feature_gates_flag(args);
  if (!gates) return gates.error();
  auto framework = plugin_framework(args, *gates);
  if (!framework) return framework.error();
  options.reconciler.framework = std::move(*framework);
  if (args.given("metrics-addr")) {
    if (auto address = parse_loopback_address(args.value("metrics-addr")); !address) {
      return usage_error(address.error().message);
    }
  }
  if (auto bad = webhook_flags(args, options.serving)) return usage_error(*bad);
  if (auto bad = status_server_flags(args, options.serving)) return usage_error(*bad);
  options.on_serving = [](std::string_view endpoint, int port) {
    std::fprintf(stderr, "%s serving %.*s on port %d\n", log_time().c_str(),
                 static_cast<int>(endpoint.size()), endpoint.data(), port);
    std::fflush(stderr);
  };
  if (auto bad = parse_certificate_flags(args, options.serving)) return usage_error(*bad);
  options.namespace_ = args.value("namespace");
  options.once = args.enabled("once");
  options.leader_election.enabled = args.enabled("leader-elect");
  options.leader_election.lease_namespace = args.value("leader-election-namespace");
  options.leader_election.lease_name = args.value("leader-election-id");
  options.on_reconcile = [](const ctl::ReconcileResult& result, const trainer::Error* error) {
    const std::string line = reconcile_line(result, error);
    std::fputs(line.c_str(), stderr);  // one call: lines of several workers never interleave
    std::fflush(stderr);
  };

  // No client-side limit unless asked for (docs/controller.md, "Request rate"): as
  // controller-runtime's since v0.21, the API server's priority and fairness protects it, and the
  // loop's concurrency is bounded by its workers, each reconcile's requests one after another.
  // Upstream's manager configures 50 requests/s with bursts of 100, which would cap the loop at
  // about 12 new TrainJobs a second; the other commands keep client-go's 5/10.
  trainer::kube::ClientOptions client_options;
  const auto qps = parse_qps(args.value("kube-api-qps"));
  if (!qps) {
    return usage_error("invalid --kube-api-qps \"" + args.value("kube-api-qps") +
                       "\": a number of requests per second (0: no limit)");
  }
  client_options.qps = *qps > 0 ? *qps : -1.0;
  const auto burst = parse_count(args.value("kube-api-burst"), 1000000);
  if (!burst) {
    return usage_error("invalid --kube-api-burst \"" + args.value("kube-api-burst") +
                       "\": a number from 1 to 1000000");
  }
  client_options.burst = *burst;
  auto client = connect(args, std::move(client_options));
  if (!client) return report_cluster_error(client.error());
  ctl::Controller controller(*client, std::move(options));

  std::unique_ptr<MetricsServer> metrics;
  if (args.given("metrics-addr")) {
    MetricsServerOptions server;
    server.address = args.value("metrics-addr");
    server.metrics = [&controller] { return controller.metrics_text(); };
    auto started = MetricsServer::start(std::move(server));
    if (!started) {
      std::fprintf(stderr, "error: %s\n", started.error().message.c_str());
      return kExitFailed;
    }
    metrics = std::move(*started);
    std::fprintf(stderr, "%s serving metrics on port %u\n", log_time().c_str(),
                 static_cast<unsigned>(metrics->port()));
  }
  const std::string ns = args.value("namespace");
  const std::string rate =
      *qps > 0 ? args.value("kube-api-qps") + " requests/s, burst " + std::to_string(*burst)
               : "no request limit";
  std::fprintf(stderr, "%s controller started: TrainJobs in %s, %d workers, %s%s%s\n",
               log_time().c_str(), ns.empty() ? "all namespaces" : ("namespace " + ns).c_str(),
               *workers, rate.c_str(), args.enabled("leader-elect") ? ", leader election" : "",
               args.enabled("once") ? ", once" : "");
  std::fflush(stderr);

  trainer::Result<void> ran;
  {
    StopSignals signals([&controller] { controller.stop(); });
    ran = controller.run();
  }
  metrics.reset();
  if (!ran) {
    std::fprintf(stderr, "%s\n", error_text(ran.error()).c_str());
    return kExitFailed;
  }
  std::fprintf(stderr, "%s controller stopped\n", log_time().c_str());
  return kExitOk;
}

std::vector<Flag> controller_flags() {
  auto flags = with_cluster_flags(
      {{"workers", '\0', "N", "TrainJobs reconciled at the same time", {}, "5"},
       {"kube-api-qps",
        '\0',
        "QPS",
        "requests per second to the API server (0: no limit)",
        {},
        "0"},
       {"kube-api-burst", '\0', "N", "requests allowed at once above --kube-api-qps", {}, "100"},
       {"once", '\0', "",
        "reconcile every TrainJob that exists now once, then exit: 0 when all succeeded, else 1"},
       {"leader-elect", '\0', "",
        "run only while holding the coordination.k8s.io Lease (one writer among replicas)"},
       {"leader-election-namespace", '\0', "NS", "namespace of the Lease", {}, "default"},
       {"leader-election-id", '\0', "NAME", "name of the Lease", {}, "trainer.kubeflow.org"},
       kFeatureGatesFlag,
       kPluginFlag,
       {"metrics-addr", '\0', "HOST:PORT",
        "serve Prometheus metrics at http://HOST:PORT/metrics (loopback only; port 0: any)"},
       {"webhook-port",
        '\0',
        "PORT",
        "serve the admission webhooks over HTTPS on this port (0: off; the Deployment of "
        "trainerctl install uses 9443)",
        {},
        "0"},
       {"webhook-bind-address",
        '\0',
        "ADDRESS",
        "address the webhook server listens on",
        {},
        "0.0.0.0"},
       {"status-server-port",
        '\0',
        "PORT",
        "with TrainJobStatus=true, serve the training progress endpoint over HTTPS on this port "
        "(0: off)",
        {},
        "10443"},
       {"status-server-bind-address",
        '\0',
        "ADDRESS",
        "address the progress endpoint listens on",
        {},
        "0.0.0.0"},
       {"webhook-cert-dir", '\0', "DIR",
        "serve tls.crt/tls.key from DIR (reloaded on change): no Secret, no caBundle patching"},
       {"webhook-service-name",
        '\0',
        "NAME",
        "Service whose DNS names the generated serving certificate covers",
        {},
        "kubeflow-trainer-controller-manager"},
       {"webhook-secret-name",
        '\0',
        "NAME",
        "Secret holding the generated CA and serving certificate",
        {},
        "kubeflow-trainer-webhook-cert"},
       {"operator-namespace", '\0', "NS",
        "namespace of that Service and Secret (default: the pod's namespace, else "
        "kubeflow-system)"},
       {"webhook-cert-hosts",
        '\0',
        "LIST",
        "more DNS names or IP addresses in the generated serving certificate (comma-separated)",
        {},
        {},
        false,
        true}});
  for (auto& flag : flags) {
    if (flag.name == "namespace") flag.help = "watch only this namespace (default: all namespaces)";
  }
  return flags;
}

}  // namespace

const Command& controller_command() {
  static const Command command{
      "controller",
      "run the TrainJob controller against a cluster",
      "Does what the Kubeflow Trainer controller does: watches TrainJobs and the objects they\n"
      "own, renders each TrainJob's objects from its runtime in the cluster, server-side applies\n"
      "them (field manager trainer) and writes the TrainJob's status. One line per reconcile on\n"
      "stderr. SIGTERM or SIGINT stops it after the reconciles in flight (exit 0).",
      {},
      controller_flags(),
      run_controller};
  return command;
}

}  // namespace trainerctl
