// SPDX-License-Identifier: Apache-2.0
//
// The loop's informer stores (controller-runtime's cache, reference 9): what the watches of
// Controller::run deliver, kept so that a reconcile reads the TrainJob, its runtime and the
// objects it owns without a request. The rules are the informers':
//
// - a kind is read from here only once its watch's first list was delivered (`synced`); the
//   loop starts its workers after every kind is synced, and until then a read goes to the server;
// - an object missing from a synced kind does not exist ("not found"), except where the store
//   does not know: another namespace than the one watched, or an object kept by name only;
// - a read after this process's own write of the object (`wrote`, `deleted`) waits, bounded, for
//   the watch to deliver that write (or anything later) and reads through to the server when the
//   bound passes, so that a reconcile never acts on a state older than what it wrote itself;
// - a watch that relists after 410 replaces the store's contents (kube::Client::watch delivers
//   the difference as events), and the store stays synced meanwhile.
//
// Bounded memory: a kind keeps whole objects (without `metadata.managedFields`, as compact JSON
// text, parsed on read) only where the reconcile needs them: every TrainJob and runtime, and of
// the owned kinds only the objects a TrainJob controls. Of any other object a watch delivers (the
// cluster's other ConfigMaps and Secrets) only its name and resourceVersion are kept, which the
// watch itself holds too (to relist): a read of one goes to the server. The records of own writes
// go when the watch delivers a later state of the object, or its deletion.
#pragma once

#include "trainer/kube.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace trainer::controller::detail {

/// What a store keeps of a kind's objects.
enum class Keep {
  kAll,    ///< every object (TrainJobs, runtimes)
  kOwned,  ///< objects a TrainJob controls whole, others by name (owned kinds)
  kNames,  ///< names only (OptimizationJobs: their reconcile reads the server)
};

/// Whether resourceVersion `a` is `b` or later: compared as numbers when both are (the API
/// server's are etcd revisions), else only equal ones count.
[[nodiscard]] bool version_at_least(std::string_view a, std::string_view b);

class ObjectCache {
 public:
  using Steady = std::chrono::steady_clock;

  /// `own_write_wait`: how long a read after an own write waits for the watch to deliver it.
  explicit ObjectCache(std::chrono::milliseconds own_write_wait);
  ObjectCache(const ObjectCache&) = delete;
  ObjectCache& operator=(const ObjectCache&) = delete;
  ~ObjectCache();

  /// Declares a store for `resource`, fed by a watch of `ns` ("" every namespace; a
  /// cluster-scoped kind ignores it). Every kind is added before any watch starts.
  void add_kind(const kube::Resource& resource, Keep keep, const std::string& ns);

  // ---- Fed by the watches (one thread per kind) ----

  /// What an event changed, for the loop's queueing: the key of the TrainJob that controlled
  /// the object before it (the store's last state) and after it (empty: none).
  struct Change {
    std::string old_owner;
    std::string new_owner;
  };
  /// Applies one event of `resource`'s watch (bookmarks are ignored).
  Change apply(const kube::Resource& resource, const kube::WatchEvent& event);
  /// The events of a list of `resource` were all applied: the kind is synced.
  void listed(const kube::Resource& resource);
  [[nodiscard]] bool synced() const;
  /// `<apiVersion>/<Kind>` of each kind not synced yet.
  [[nodiscard]] std::vector<std::string> unsynced() const;

  // ---- Read by the reconciles ----

  enum class Hit {
    kFound,
    kAbsent,   ///< synced and not there: not found
    kUnknown,  ///< not this store's to answer (or an own write not yet seen): read the server
  };
  struct Read {
    Hit hit = Hit::kUnknown;
    std::optional<boost::json::object> object;  ///< with kFound
  };
  /// The object `api_version`/`kind` `ns`/`name` as the store holds it (a cluster-scoped kind's
  /// `ns` is ignored), after any own write of it was delivered (waiting at most the bound).
  [[nodiscard]] Read get(std::string_view api_version, std::string_view kind, std::string_view ns,
                         std::string_view name) const;
  /// Keys (`<namespace>/<name>`) of every object of `resource` (the resync's TrainJobs).
  [[nodiscard]] std::vector<std::string> keys(const kube::Resource& resource) const;

  // ---- This process's own writes ----

  /// A write of the object succeeded and the server answered `answer` (its resourceVersion);
  /// `applied_digest`: the digest of the body of a server-side apply (empty for other writes).
  void wrote(std::string_view api_version, std::string_view kind, std::string_view ns,
             std::string_view name, const boost::json::object& answer,
             std::string applied_digest = {});
  /// A delete of the object succeeded: reads wait for the watch's DELETED.
  void deleted(std::string_view api_version, std::string_view kind, std::string_view ns,
               std::string_view name, const boost::json::object& answer);
  /// True when this process's last write of the object was an apply with `digest` and the
  /// object has not changed since (its resourceVersion is the apply's answer's): applying the
  /// same body again would change nothing. Waits for the apply to be delivered as `get` does.
  [[nodiscard]] bool unchanged_since_apply(std::string_view api_version, std::string_view kind,
                                           std::string_view ns, std::string_view name,
                                           std::string_view digest) const;

  /// How many objects the stores hold whole, by name only, and own writes not yet seen.
  struct Size {
    std::size_t kept = 0;
    std::size_t names = 0;
    std::size_t writes = 0;
  };
  [[nodiscard]] Size size() const;

  struct Store;

 private:
  [[nodiscard]] Store* store_of(std::string_view api_version, std::string_view kind) const;

  const std::chrono::milliseconds own_write_wait_;
  // By `<apiVersion>/<Kind>`; added before the watches start and never changed after: read
  // without a lock.
  std::map<std::string, std::unique_ptr<Store>, std::less<>> stores_;
};

/// One kind's informer: watches `resource` in `ns` ("" every namespace) until `cancel`, feeding
/// `cache`'s store of it; each event reaches `on_change` after the store took it (so that a
/// reconcile the event queues reads at least that state), and `on_listed` follows each list the
/// store took (the first: synced). Returns what the watch returns (kCancelled when cancelled).
[[nodiscard]] Result<void> run_informer(
    kube::Client& client, const kube::Resource& resource, const std::string& ns,
    const kube::CancelToken& cancel, ObjectCache& cache,
    const std::function<void(const kube::WatchEvent&, const ObjectCache::Change&)>& on_change,
    const std::function<void()>& on_listed);

/// SHA-256 of `text` (hex): the digest of an applied body.
[[nodiscard]] std::string body_digest(std::string_view text);

}  // namespace trainer::controller::detail
