// SPDX-License-Identifier: Apache-2.0
//
// Leader election with a coordination.k8s.io/v1 Lease, as client-go's leaderelection package
// does it (reference 9.4): optimistic concurrency through the Lease's resourceVersion (every
// write is a PUT of the object last read or written, or a POST when there is none), expiry
// judged from the local clock at which the record was last seen to change (never the remote
// renewTime, so clock skew between candidates does not matter), leaseTransitions counted on
// takeover, a renew loop that stops leading when no renewal succeeded within RenewDeadline, and
// release on shutdown (holderIdentity "", leaseDurationSeconds 1).
#pragma once

#include "trainer/controller.hpp"
#include "trainer/kube.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

namespace trainer::controller::detail {

/// `LeaseDuration > RenewDeadline > 1.2 * RetryPeriod`, as client-go's NewLeaderElector checks.
[[nodiscard]] Result<void> validate(const LeaderElection& config);

/// `<hostname>_<random UUID>`, controller-runtime's identity.
[[nodiscard]] std::string default_identity();

class LeaderElector {
 public:
  /// `config.identity` empty: `default_identity()`.
  LeaderElector(kube::Client& client, LeaderElection config);

  [[nodiscard]] const std::string& identity() const { return config_.identity; }

  /// One `tryAcquireOrRenew`: true when this candidate holds the lease afterwards. Each request
  /// is bounded by `timeout` and ends early when `cancel` is cancelled.
  [[nodiscard]] bool try_acquire_or_renew(const kube::CancelToken& cancel,
                                          std::chrono::milliseconds timeout);
  /// Tries every RetryPeriod (jittered by up to 1.2x) until the lease is held (true) or
  /// `cancel` is cancelled (false).
  [[nodiscard]] bool acquire(const kube::CancelToken& cancel);
  /// Renews every RetryPeriod until `cancel` is cancelled (true: still leader) or no renewal
  /// succeeded within RenewDeadline (false: leadership lost).
  [[nodiscard]] bool renew(const kube::CancelToken& cancel);
  /// Gives the lease up when held (holderIdentity "", leaseDurationSeconds 1), bounded by
  /// RenewDeadline; a conflict is retried once on the lease read again.
  void release();

  /// The holder last observed (the lease as this candidate last read or wrote it).
  [[nodiscard]] bool is_leader() const;

 private:
  struct Record {
    std::string holder;
    std::int64_t lease_duration_seconds = 0;
    std::string acquire_time;
    std::string renew_time;
    std::int64_t transitions = 0;
    bool operator==(const Record& other) const;
  };
  static Record record_of(const boost::json::object& lease);
  boost::json::object lease_with(const boost::json::object* base, const Record& record) const;
  void observe(const boost::json::object& lease, std::chrono::steady_clock::time_point now);
  bool valid_at(std::chrono::steady_clock::time_point now) const;
  Result<boost::json::object> put(const boost::json::object& lease, const kube::CancelToken& cancel,
                                  std::chrono::milliseconds timeout);
  [[nodiscard]] std::string lease_path() const;

  kube::Client& client_;
  LeaderElection config_;
  mutable std::mutex mutex_;
  std::optional<boost::json::object> lease_;  // as last read or written (its resourceVersion)
  std::optional<Record> observed_;
  std::chrono::steady_clock::time_point observed_time_{};
};

}  // namespace trainer::controller::detail
