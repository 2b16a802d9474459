// SPDX-License-Identifier: Apache-2.0
//
// The Warning event of a failed reconcile, as controller-runtime's events.k8s.io/v1 recorder
// writes it (reference kubernetes-api-client section 10), synchronously and best effort, with
// the core/v1 fields that give it a firstTimestamp (docs/upstream-differences.md).
#include "controller/controller_internal.hpp"

#include <boost/json/object.hpp>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <ctime>

namespace trainer::controller::detail {
namespace {

namespace json = boost::json;

// The name upstream's TrainJob reconciler records under (pkg/controller/setup.go).
constexpr std::string_view kReportingController = "trainer-trainjob-controller";
constexpr std::size_t kMaxErrorBytes = 950;

std::string hostname() {
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0) return "unknown";
  return host.data();
}

// `error_text` cut at `max_bytes`, with ` ...` appended when cut.
std::string cut_note(std::string_view error_text, std::size_t max_bytes = kMaxErrorBytes) {
  std::string text(error_text);
  if (text.size() > max_bytes) {
    std::size_t cut = max_bytes;
    // Not inside a UTF-8 sequence: the API server refuses invalid UTF-8 in the note.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) --cut;
    text = text.substr(0, cut) + " ...";
  }
  return text;
}

}  // namespace

std::string creation_failed_note(std::string_view error_text) {
  return "TrainJob resources reconciliation failed: " + cut_note(error_text);
}

std::string validation_failed_note(std::string_view error_text) {
  return "TrainJob refused by admission: " + cut_note(error_text);
}

std::string condition_message(std::string_view text) {
  // metav1.Condition's schema: message maxLength 32768 (room left for ` ...`).
  return cut_note(text, 32768 - 4);
}

json::object warning_event(const TrainJob& job, std::string_view reason, std::string_view note,
                           Clock::time_point now, std::string_view host) {
  const std::string name = job.metadata.name.value_or("");
  const std::string ns = job.metadata.namespace_.value_or("default");
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".%llx", static_cast<unsigned long long>(nanos));
  json::object regarding{{"kind", job.kind},
                         {"namespace", ns},
                         {"name", name},
                         {"uid", job.metadata.uid.value_or("")},
                         {"apiVersion", job.api_version},
                         {"resourceVersion", job.metadata.resource_version.value_or("")}};
  std::string instance = std::string(kReportingController) + "-" + std::string(host);
  if (instance.size() > 128) instance.resize(128);  // the API's limit
  // Written through core/v1, the API the events.k8s.io/v1 object is stored as: the same
  // eventTime, reporting fields, action, reason and note (`message`) as upstream's recorder, plus
  // firstTimestamp, lastTimestamp, count and source, which events.k8s.io/v1 refuses to set and
  // core/v1 readers (the Kubeflow SDK's get_job_events) need: an event without firstTimestamp is
  // skipped there.
  return json::object{{"apiVersion", "v1"},
                      {"kind", "Event"},
                      {"metadata", json::object{{"name", name + suffix}, {"namespace", ns}}},
                      {"eventTime", micro_time(now)},
                      {"reportingComponent", kReportingController},
                      {"reportingInstance", instance},
                      {"action", "Reconciling"},
                      {"reason", reason},
                      {"involvedObject", std::move(regarding)},
                      {"message", note},
                      {"type", "Warning"},
                      {"source", json::object{{"component", kReportingController}, {"host", host}}},
                      {"firstTimestamp", format_time(now)},
                      {"lastTimestamp", format_time(now)},
                      {"count", 1}};
}

Result<void> record_warning(kube::Client& client, const TrainJob& job, std::string_view reason,
                            std::string_view note, Clock::time_point now,
                            const kube::CancelToken& cancel) {
  kube::CallOptions call;
  call.cancel = cancel;
  auto resource = client.resource_for("v1", "Event", call);
  if (!resource) return tl::unexpected(std::move(resource.error()));
  const json::object event = warning_event(job, reason, note, now, hostname());
  kube::WriteOptions write;
  write.cancel = cancel;
  auto created =
      client.create(*resource, job.metadata.namespace_.value_or("default"), event, write);
  if (!created) return tl::unexpected(std::move(created.error()));
  return {};
}

}  // namespace trainer::controller::detail
