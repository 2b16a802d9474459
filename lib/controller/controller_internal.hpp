// SPDX-License-Identifier: Apache-2.0
//
// What the pieces of lib/controller share: upstream's condition constants (reference 1.8), the
// time format of `metav1.Time`, the JSON merge patch of the status write and the event recorder.
#pragma once

#include "trainer/controller.hpp"

#include <boost/json/value.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::controller {

// TrainJob condition types, reasons and messages (kubeflow/trainer pkg/constants).
inline constexpr std::string_view kConditionSuspended = "Suspended";
inline constexpr std::string_view kConditionComplete = "Complete";
inline constexpr std::string_view kConditionFailed = "Failed";
inline constexpr std::string_view kReasonSuspended = "Suspended";
inline constexpr std::string_view kMessageSuspended = "TrainJob is suspended";
inline constexpr std::string_view kReasonResumed = "Resumed";
inline constexpr std::string_view kMessageResumed = "TrainJob is resumed";
inline constexpr std::string_view kReasonDeadlineExceeded = "DeadlineExceeded";
inline constexpr std::string_view kMessageDeadlineExceeded =
    "TrainJob exceeded its active deadline";
inline constexpr std::string_view kReasonRuntimeNotSupported = "TrainingRuntimeNotSupported";
inline constexpr std::string_view kReasonCreationFailed = "TrainJobResourcesCreationFailed";
/// libtrainer's: the TrainJob is refused by admission on its runtime (upstream's webhook would
/// have refused its creation), e.g. more pods than kMaxPodsPerTrainJob.
inline constexpr std::string_view kReasonValidationFailed = "TrainJobValidationFailed";

namespace detail {

class ObjectCache;

/// A reconciler that reads through `cache` (the loop's informer stores, object_cache.hpp) and
/// records its writes there; null: every read is a GET, as `Reconciler`'s.
[[nodiscard]] std::shared_ptr<Reconciler::Impl> cached_reconciler(kube::Client& client,
                                                                  ReconcilerOptions options,
                                                                  ObjectCache* cache);
/// `Reconciler::reconcile` of `reconciler`.
[[nodiscard]] Result<ReconcileResult> reconcile(Reconciler::Impl& reconciler, std::string_view ns,
                                                std::string_view name);

/// `Complete` or `Failed` is True (upstream `IsTrainJobFinished`).
[[nodiscard]] bool is_finished(const TrainJobStatus& status);
[[nodiscard]] bool is_finished(const TrainJob& job);

/// RFC 3339 UTC with seconds (`metav1.Time`), and its parser (fractions and offsets accepted).
[[nodiscard]] std::string format_time(Clock::time_point t);
/// `metav1.MicroTime` (Lease times, eventTime): RFC 3339 UTC with microseconds.
[[nodiscard]] std::string micro_time(Clock::time_point t);
[[nodiscard]] std::optional<Clock::time_point> parse_time(std::string_view text);

/// RFC 7386 merge patch that turns `from` into `to` (what controller-runtime's
/// `client.MergeFrom(prev)` sends): changed keys with their new value, removed keys as null,
/// arrays and scalars whole. Null when nothing differs.
[[nodiscard]] boost::json::value merge_patch(const boost::json::value& from,
                                             const boost::json::value& to);

/// The note of the `TrainJobResourcesCreationFailed` event: upstream cuts the error text at
/// 950 bytes and appends ` ...` (here at the last UTF-8 character boundary within 950 bytes).
[[nodiscard]] std::string creation_failed_note(std::string_view error_text);
/// The note of the `TrainJobValidationFailed` event: admission's errors, cut likewise.
[[nodiscard]] std::string validation_failed_note(std::string_view error_text);
/// `text` as a condition message: cut, like the notes, within the schema's 32768 bytes.
[[nodiscard]] std::string condition_message(std::string_view text);

/// The events.k8s.io/v1 Warning event controller-runtime's recorder writes on `job` (reference
/// kubernetes-api-client 10): name `<job>.<hex unix nanos>`, reportingController
/// `trainer-trainjob-controller`, action `Reconciling`; written as a core/v1 object with
/// firstTimestamp, lastTimestamp, count and source, which core/v1 readers need and the
/// events.k8s.io/v1 API refuses to set (docs/upstream-differences.md).
[[nodiscard]] boost::json::object warning_event(const TrainJob& job, std::string_view reason,
                                                std::string_view note, Clock::time_point now,
                                                std::string_view hostname);

/// Creates `warning_event(...)` in the TrainJob's namespace. The recorder is best effort, as
/// upstream's: the caller ignores a failure.
[[nodiscard]] Result<void> record_warning(kube::Client& client, const TrainJob& job,
                                          std::string_view reason, std::string_view note,
                                          Clock::time_point now, const kube::CancelToken& cancel);

}  // namespace detail
}  // namespace trainer::controller
