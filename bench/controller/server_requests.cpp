// SPDX-License-Identifier: Apache-2.0
#include "server_requests.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

namespace bench {
namespace {

// The value of label `name` in `labels` (`a="x",b="y"`); label values here hold no quotes.
std::string_view label(std::string_view labels, std::string_view name) {
  const std::string key = std::string(name) + "=\"";
  for (std::size_t at = labels.find(key); at != std::string_view::npos;
       at = labels.find(key, at + 1)) {
    if (at != 0 && labels[at - 1] != ',') continue;
    const std::size_t start = at + key.size();
    return labels.substr(start, labels.find('"', start) - start);
  }
  return {};
}

}  // namespace

std::uint64_t ServerRequests::total() const {
  std::uint64_t sum = 0;
  for (const auto& [verb, n] : by_verb) sum += n;
  return sum;
}

ServerRequests ServerRequests::since(const ServerRequests& before) const {
  ServerRequests out;
  for (const auto& [verb, n] : by_verb) {
    const auto it = before.by_verb.find(verb);
    const std::uint64_t was = it == before.by_verb.end() ? 0 : it->second;
    if (n > was) out.by_verb[verb] = n - was;
  }
  return out;
}

std::string ServerRequests::text() const {
  std::vector<std::pair<std::string, std::uint64_t>> verbs(by_verb.begin(), by_verb.end());
  std::stable_sort(verbs.begin(), verbs.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [verb, n] : verbs) {
    out += (out.empty() ? "" : ", ") + verb + " " + std::to_string(n);
  }
  return out.empty() ? "none" : out;
}

ServerRequests parse_server_requests(std::string_view metrics_text) {
  static constexpr std::string_view kMetric = "apiserver_request_total{";
  ServerRequests out;
  std::size_t line_start = 0;
  while (line_start < metrics_text.size()) {
    std::size_t line_end = metrics_text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = metrics_text.size();
    const std::string_view line = metrics_text.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    if (line.compare(0, kMetric.size(), kMetric) != 0) continue;
    const std::size_t close = line.find('}');
    if (close == std::string_view::npos) continue;
    const std::string_view labels = line.substr(kMetric.size(), close - kMetric.size());
    if (label(labels, "resource").empty() || !label(labels, "system_client").empty()) continue;
    const std::string value(line.substr(close + 1));
    out.by_verb[std::string(label(labels, "verb"))] +=
        static_cast<std::uint64_t>(std::strtod(value.c_str(), nullptr));
  }
  return out;
}

ServerRequests server_requests(trainer::kube::Client& client) {
  trainer::kube::RawRequest request;
  request.path = "/metrics";
  auto response = client.raw(request);
  if (!response) {
    std::fprintf(stderr, "bench_controller: GET /metrics: %s\n",
                 trainer::kube::kubectl_text(response.error()).c_str());
    std::exit(1);
  }
  return parse_server_requests(response->body);
}

}  // namespace bench
