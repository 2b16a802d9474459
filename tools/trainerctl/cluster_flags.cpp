// SPDX-License-Identifier: Apache-2.0
#include "cluster_flags.hpp"

#include "commands.hpp"
#include "output.hpp"

#include <cctype>
#include <cstdio>
#include <utility>

namespace trainerctl {

std::vector<Flag> with_cluster_flags(std::vector<Flag> flags) {
  flags.push_back({"kubeconfig", '\0', "PATH",
                   "the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else "
                   "in-cluster)"});
  flags.push_back({"context", '\0', "NAME", "the kubeconfig context (default: current-context)"});
  flags.push_back({"namespace", 'n', "NS", "the namespace (default: the context's, else default)"});
  flags.push_back({"request-timeout", '\0', "DURATION",
                   "bound on each request to the server (1s, 2m, bare seconds; 0: 30s)"});
  return flags;
}

std::optional<std::chrono::milliseconds> parse_duration(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const auto digits = text.find_first_not_of("0123456789");
  if (digits == std::string::npos) {
    if (text.size() > 9) return std::nullopt;
    return std::chrono::seconds(std::stol(text));
  }
  // Go's time.ParseDuration for the units a timeout needs: (<number><unit>)+.
  double total_ms = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    while (i < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
      ++i;
    }
    if (i == start || i - start > 12) return std::nullopt;
    const double number = std::stod(text.substr(start, i - start));
    const std::size_t unit_start = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    const std::string unit = text.substr(unit_start, i - unit_start);
    double scale = 0;
    if (unit == "ms")
      scale = 1;
    else if (unit == "s")
      scale = 1000;
    else if (unit == "m")
      scale = 60 * 1000;
    else if (unit == "h")
      scale = 3600 * 1000;
    else if (unit == "us" || unit == "µs")
      scale = 0.001;
    else if (unit == "ns")
      scale = 0.000001;
    else
      return std::nullopt;
    total_ms += number * scale;
  }
  if (total_ms > 1e12) return std::nullopt;
  return std::chrono::milliseconds(static_cast<std::int64_t>(total_ms));
}

trainer::Result<trainer::kube::Client> connect(const Parsed& args,
                                               trainer::kube::ClientOptions options) {
  trainer::kube::LoadOptions load;
  load.kubeconfig = args.value("kubeconfig");
  load.context = args.value("context");
  load.namespace_ = args.value("namespace");
  auto config = trainer::kube::load_config(load);
  if (!config) return tl::unexpected(std::move(config.error()));
  for (const auto& warning : config->warnings) print_warning(warning);
  if (args.given("request-timeout")) {
    const auto timeout = parse_duration(args.value("request-timeout"));
    if (!timeout) {
      return trainer::fail(trainer::ErrorCode::kInvalidArgument,
                           "invalid --request-timeout \"" + args.value("request-timeout") +
                               "\": a duration like 1s, 2m or a number of seconds");
    }
    if (timeout->count() > 0) options.timeout = *timeout;
  }
  options.on_warning = print_warning;
  // The retries a watch makes by itself (`get -w`, `wait`, `controller`), on stderr as
  // kubectl's reflector logs them.
  options.on_log = [](std::string_view line) {
    std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
  };
  return trainer::kube::Client::create(std::move(*config), std::move(options));
}

std::string namespace_of(const Parsed& args, const trainer::kube::Client& client) {
  const std::string ns = args.value("namespace");
  return ns.empty() ? client.default_namespace() : ns;
}

int report_cluster_error(const trainer::Error& error) {
  // Local admission rejected the inputs: its field errors, as `trainerctl validate` prints them.
  if (error.http_status == 0 && !error.fields.empty()) return report_error(error);
  std::fprintf(stderr, "%s\n", trainer::kube::kubectl_text(error).c_str());
  return kExitFailed;
}

boost::json::object without_managed_fields(boost::json::object object) {
  if (auto* meta = object.if_contains("metadata"); meta != nullptr && meta->is_object()) {
    meta->get_object().erase("managedFields");
  }
  return object;
}

}  // namespace trainerctl
