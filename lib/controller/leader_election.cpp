// SPDX-License-Identifier: Apache-2.0
#include "controller/leader_election.hpp"

#include "controller/controller_internal.hpp"
#include "kube/client/cancellable_wait.hpp"
#include "trainer/json_path.hpp"
#include "trainer/render.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>
#include <random>

namespace trainer::controller::detail {
namespace {

using Steady = std::chrono::steady_clock;

// client-go's JitterFactor for the acquire loop.
constexpr double kJitterFactor = 1.2;

std::string micro_time_now() {
  return micro_time(std::chrono::system_clock::now());
}

std::int64_t whole_seconds(std::chrono::milliseconds d) {
  // leaseDurationSeconds is whole seconds; never round a short duration down to 0.
  return std::max<std::int64_t>(1, (d.count() + 999) / 1000);
}

}  // namespace

Result<void> validate(const LeaderElection& config) {
  if (config.lease_duration <= config.renew_deadline) {
    return fail(ErrorCode::kInvalidArgument,
                "leader election: leaseDuration must be greater than renewDeadline");
  }
  const auto min_deadline = static_cast<double>(config.retry_period.count()) * kJitterFactor;
  if (static_cast<double>(config.renew_deadline.count()) <= min_deadline) {
    return fail(ErrorCode::kInvalidArgument,
                "leader election: renewDeadline must be greater than retryPeriod*JitterFactor");
  }
  if (config.retry_period.count() < 1) {
    return fail(ErrorCode::kInvalidArgument, "leader election: retryPeriod must be positive");
  }
  if (config.lease_name.empty() || config.lease_namespace.empty()) {
    return fail(ErrorCode::kInvalidArgument,
                "leader election: the lease needs a name and a namespace");
  }
  return {};
}

std::string default_identity() {
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0) host[0] = '\0';
  return std::string(host.data()) + "_" + random_uuid();
}

bool LeaderElector::Record::operator==(const Record& other) const {
  return holder == other.holder && lease_duration_seconds == other.lease_duration_seconds &&
         acquire_time == other.acquire_time && renew_time == other.renew_time &&
         transitions == other.transitions;
}

LeaderElector::LeaderElector(kube::Client& client, LeaderElection config)
    : client_(client), config_(std::move(config)) {
  if (config_.identity.empty()) config_.identity = default_identity();
}

std::string LeaderElector::lease_path() const {
  return "/apis/coordination.k8s.io/v1/namespaces/" + config_.lease_namespace + "/leases/" +
         config_.lease_name;
}

LeaderElector::Record LeaderElector::record_of(const boost::json::object& lease) {
  Record record;
  const auto* spec = trainer::find_object(lease, "spec");
  if (spec == nullptr) return record;
  record.holder = trainer::find_string(*spec, "holderIdentity").value_or("");
  record.lease_duration_seconds = trainer::find_int(*spec, "leaseDurationSeconds").value_or(0);
  record.acquire_time = trainer::find_string(*spec, "acquireTime").value_or("");
  record.renew_time = trainer::find_string(*spec, "renewTime").value_or("");
  record.transitions = trainer::find_int(*spec, "leaseTransitions").value_or(0);
  return record;
}

boost::json::object LeaderElector::lease_with(const boost::json::object* base,
                                              const Record& record) const {
  boost::json::object lease;
  if (base != nullptr) {
    lease = *base;  // keeps metadata.resourceVersion: the PUT is conditional on it
  } else {
    lease["apiVersion"] = "coordination.k8s.io/v1";
    lease["kind"] = "Lease";
    lease["metadata"] =
        boost::json::object{{"name", config_.lease_name}, {"namespace", config_.lease_namespace}};
  }
  auto& spec = trainer::ensure_object(lease, {"spec"});
  spec["holderIdentity"] = record.holder;
  spec["leaseDurationSeconds"] = record.lease_duration_seconds;
  spec["acquireTime"] = record.acquire_time;
  spec["renewTime"] = record.renew_time;
  spec["leaseTransitions"] = record.transitions;
  return lease;
}

void LeaderElector::observe(const boost::json::object& lease, Steady::time_point now) {
  const Record record = record_of(lease);
  lease_ = lease;
  if (!observed_ || !(*observed_ == record)) {
    observed_ = record;
    observed_time_ = now;
  }
}

bool LeaderElector::valid_at(Steady::time_point now) const {
  return observed_ &&
         observed_time_ + std::chrono::seconds(observed_->lease_duration_seconds) > now;
}

bool LeaderElector::is_leader() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return observed_ && observed_->holder == config_.identity;
}

Result<boost::json::object> LeaderElector::put(const boost::json::object& lease,
                                               const kube::CancelToken& cancel,
                                               std::chrono::milliseconds timeout) {
  kube::RawRequest request;
  request.method = "PUT";
  request.path = lease_path();
  request.headers.emplace_back("Content-Type", "application/json");
  request.body = boost::json::serialize(lease);
  request.cancel = cancel;
  request.timeout = timeout;
  auto response = client_.raw(request);
  if (!response) return tl::unexpected(response.error());
  boost::system::error_code ec;
  auto parsed = boost::json::parse(response->body, ec);
  if (ec || !parsed.is_object()) return fail(ErrorCode::kParse, "leader election: bad Lease");
  return std::move(parsed.get_object());
}

bool LeaderElector::try_acquire_or_renew(const kube::CancelToken& cancel,
                                         std::chrono::milliseconds timeout) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string now_text = micro_time_now();
  Record desired;
  desired.holder = config_.identity;
  desired.lease_duration_seconds = whole_seconds(config_.lease_duration);
  desired.acquire_time = now_text;
  desired.renew_time = now_text;

  const bool leader = observed_ && observed_->holder == config_.identity;
  // 1. Fast path: already leader and the lease still valid locally: renew the cached object.
  if (leader && lease_ && valid_at(Steady::now())) {
    Record renewed = desired;
    renewed.acquire_time = observed_->acquire_time;
    renewed.transitions = observed_->transitions;
    auto written = put(lease_with(&*lease_, renewed), cancel, timeout);
    if (written) {
      observe(*written, Steady::now());
      return true;
    }
  }

  // 2. Read the lease; create it when there is none.
  kube::RawRequest get;
  get.path = lease_path();
  get.cancel = cancel;
  get.timeout = timeout;
  auto response = client_.raw(get);
  if (!response) {
    if (response.error().http_status != 404) return false;
    kube::RawRequest post;
    post.method = "POST";
    post.path = "/apis/coordination.k8s.io/v1/namespaces/" + config_.lease_namespace + "/leases";
    post.headers.emplace_back("Content-Type", "application/json");
    post.body = boost::json::serialize(lease_with(nullptr, desired));
    post.cancel = cancel;
    post.timeout = timeout;
    auto created = client_.raw(post);
    if (!created) return false;
    boost::system::error_code ec;
    auto parsed = boost::json::parse(created->body, ec);
    if (ec || !parsed.is_object()) return false;
    observe(parsed.get_object(), Steady::now());
    return true;
  }
  boost::system::error_code ec;
  auto parsed = boost::json::parse(response->body, ec);
  if (ec || !parsed.is_object()) return false;
  const boost::json::object current = std::move(parsed.get_object());

  // 3. A changed record restarts the local expiry clock.
  const auto seen_at = Steady::now();
  observe(current, seen_at);
  const Record old = *observed_;
  const bool still_leader = old.holder == config_.identity;
  // 4. Held by someone else and not expired (by our clock): not ours to take.
  if (!old.holder.empty() && valid_at(seen_at) && !still_leader) return false;

  // 5. Take or keep it, conditional on the version just read.
  if (still_leader) {
    desired.acquire_time = old.acquire_time;
    desired.transitions = old.transitions;
  } else {
    desired.transitions = old.transitions + 1;
  }
  auto written = put(lease_with(&current, desired), cancel, timeout);
  if (!written) return false;  // 409: someone else won
  observe(*written, Steady::now());
  return true;
}

bool LeaderElector::acquire(const kube::CancelToken& cancel) {
  for (;;) {
    if (cancel.cancelled()) return false;
    if (try_acquire_or_renew(cancel, config_.renew_deadline)) return true;
    if (!kube::detail::sleep_until(
            Steady::now() + kube::detail::jittered(config_.retry_period, kJitterFactor), cancel)) {
      return false;
    }
  }
}

bool LeaderElector::renew(const kube::CancelToken& cancel) {
  for (;;) {
    if (!kube::detail::sleep_until(Steady::now() + config_.retry_period, cancel)) return true;
    // One round: retry every RetryPeriod until a renewal succeeds or RenewDeadline passes.
    const auto deadline = Steady::now() + config_.renew_deadline;
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Steady::now());
      if (left <= std::chrono::milliseconds(0)) return false;
      if (try_acquire_or_renew(cancel, left)) break;
      if (cancel.cancelled()) return true;
      if (Steady::now() >= deadline) return false;
      if (!kube::detail::sleep_until(std::min(deadline, Steady::now() + config_.retry_period),
                                     cancel)) {
        return true;
      }
    }
  }
}

void LeaderElector::release() {
  std::lock_guard<std::mutex> lock(mutex_);
  const kube::CancelToken cancel;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!observed_ || observed_->holder != config_.identity || !lease_) return;
    Record released;
    released.lease_duration_seconds = 1;
    released.acquire_time = micro_time_now();
    released.renew_time = released.acquire_time;
    released.transitions = observed_->transitions;
    auto written = put(lease_with(&*lease_, released), cancel, config_.renew_deadline);
    if (written) {
      observe(*written, Steady::now());
      return;
    }
    if (written.error().http_status != 409) return;
    // Our cached version is stale: read the lease again and release it if it is still ours.
    kube::RawRequest get;
    get.path = lease_path();
    get.timeout = config_.renew_deadline;
    auto response = client_.raw(get);
    if (!response) return;
    boost::system::error_code ec;
    auto parsed = boost::json::parse(response->body, ec);
    if (ec || !parsed.is_object()) return;
    observe(parsed.get_object(), Steady::now());
  }
}

}  // namespace trainer::controller::detail
