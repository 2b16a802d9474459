// SPDX-License-Identifier: Apache-2.0
#include "controller/object_cache.hpp"

#include "controller/owner_key.hpp"
#include "trainer/json_path.hpp"

#include <openssl/evp.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <charconv>
#include <cstdint>
#include <utility>

namespace trainer::controller::detail {

namespace json = boost::json;

namespace {

std::string store_key(std::string_view api_version, std::string_view kind) {
  std::string key(api_version);
  key += '/';
  key += kind;
  return key;
}

std::optional<std::uint64_t> revision(std::string_view version) {
  std::uint64_t n = 0;
  const char* end = version.data() + version.size();
  const auto [ptr, ec] = std::from_chars(version.data(), end, n);
  if (version.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return n;
}

std::string resource_version(const json::object& object) {
  const auto* metadata = trainer::find_object(object, "metadata");
  return metadata == nullptr ? std::string()
                             : trainer::find_string(*metadata, "resourceVersion").value_or("");
}

// The object as kept: compact JSON without metadata.managedFields, which no reconcile reads and
// which is often the largest part of a small object.
std::shared_ptr<const std::string> kept_text(const json::object& object) {
  json::object copy = object;
  if (auto* metadata = copy.if_contains("metadata"); metadata != nullptr && metadata->is_object()) {
    metadata->get_object().erase("managedFields");
  }
  return std::make_shared<const std::string>(json::serialize(copy));
}

}  // namespace

bool version_at_least(std::string_view a, std::string_view b) {
  const auto ra = revision(a);
  const auto rb = revision(b);
  if (ra && rb) return *ra >= *rb;
  return a == b;
}

std::string body_digest(std::string_view text) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(text.data(), text.size(), md, &length, EVP_sha256(), nullptr) != 1) {
    return {};  // no digest: never equal to a recorded one (an empty digest is never recorded)
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[md[i] >> 4U];
    hex += kHex[md[i] & 0xFU];
  }
  return hex;
}

struct ObjectCache::Store {
  Keep keep = Keep::kAll;
  bool namespaced = true;
  std::string ns;  // the watched namespace; empty: every namespace

  mutable std::mutex mutex;
  mutable std::condition_variable changed;
  bool synced = false;

  struct Entry {
    std::string version;
    std::string owner;                        // the controlling TrainJob (kOwned kinds)
    std::shared_ptr<const std::string> text;  // null: kept by name only
  };
  std::unordered_map<std::string, Entry> entries;

  // This process's writes the watch has not superseded yet. A delete's record waits for the
  // DELETED event; an apply's or a patch's for the event of its resourceVersion (`seen`), and an
  // apply's stays while the object keeps that version, for unchanged_since_apply.
  struct OwnWrite {
    std::string version;
    std::string digest;
    bool deleted = false;
    bool seen = false;
    Steady::time_point at;
  };
  std::unordered_map<std::string, OwnWrite> writes;

  [[nodiscard]] std::string key(std::string_view object_ns, std::string_view name) const {
    std::string k(namespaced ? object_ns : std::string_view());
    k += '/';
    k += name;
    return k;
  }

  // Whether a read of `object_ns` is this store's to answer.
  [[nodiscard]] bool covers(std::string_view object_ns) const {
    return !namespaced || ns.empty() || object_ns == ns;
  }

  // Waits, at most until `deadline`, until no own write of `key` is pending; false on timeout.
  bool wait_for_own_write(std::unique_lock<std::mutex>& lock, const std::string& key,
                          Steady::time_point deadline) const {
    return changed.wait_until(lock, deadline, [&] {
      const auto it = writes.find(key);
      return it == writes.end() || (!it->second.deleted && it->second.seen);
    });
  }

  // The event of `key` at `version` (`deleted`: a DELETED one, `added`: an ADDED one) reached
  // the store: settle the own write it answers or supersedes.
  void settle(const std::string& key, const std::string& version, bool deleted, bool added) {
    const auto it = writes.find(key);
    if (it == writes.end()) return;
    OwnWrite& write = it->second;
    if (write.deleted) {
      // Gone, or created again under the same name after the delete.
      if (deleted || added) writes.erase(it);
      return;
    }
    if (deleted) {
      // Deleted after the write (a relist's DELETED carries the last version it knew).
      if (version_at_least(version, write.version)) writes.erase(it);
    } else if (version == write.version) {
      write.seen = true;
      if (write.digest.empty()) writes.erase(it);  // nothing more to remember
    } else if (version_at_least(version, write.version)) {
      writes.erase(it);  // a later state is in the store
    }
  }
};

ObjectCache::ObjectCache(std::chrono::milliseconds own_write_wait)
    : own_write_wait_(own_write_wait) {}

ObjectCache::~ObjectCache() = default;

void ObjectCache::add_kind(const kube::Resource& resource, Keep keep, const std::string& ns) {
  auto store = std::make_unique<Store>();
  store->keep = keep;
  store->namespaced = resource.namespaced;
  store->ns = resource.namespaced ? ns : std::string();
  stores_[store_key(resource.api_version(), resource.kind)] = std::move(store);
}

ObjectCache::Store* ObjectCache::store_of(std::string_view api_version,
                                          std::string_view kind) const {
  const auto it = stores_.find(store_key(api_version, kind));
  return it == stores_.end() ? nullptr : it->second.get();
}

ObjectCache::Change ObjectCache::apply(const kube::Resource& resource,
                                       const kube::WatchEvent& event) {
  Change change;
  if (event.type == kube::WatchEventType::kBookmark) return change;
  Store* store = store_of(resource.api_version(), resource.kind);
  if (store == nullptr) return change;
  const std::string key = object_key(event.object);
  const std::string version = resource_version(event.object);
  const bool deleted = event.type == kube::WatchEventType::kDeleted;
  if (store->keep == Keep::kOwned)
    change.new_owner = controller_owner_key(event.object).value_or("");
  // Serialized before the lock: the readers wait only for the map.
  std::shared_ptr<const std::string> text;
  if (!deleted &&
      (store->keep == Keep::kAll || (store->keep == Keep::kOwned && !change.new_owner.empty()))) {
    text = kept_text(event.object);
  }
  {
    std::lock_guard<std::mutex> lock(store->mutex);
    const auto it = store->entries.find(key);
    if (it != store->entries.end()) change.old_owner = it->second.owner;
    if (deleted) {
      if (it != store->entries.end()) store->entries.erase(it);
    } else {
      store->entries[key] = Store::Entry{version, change.new_owner, std::move(text)};
    }
    store->settle(key, version, deleted, event.type == kube::WatchEventType::kAdded);
  }
  store->changed.notify_all();
  return change;
}

void ObjectCache::listed(const kube::Resource& resource) {
  Store* store = store_of(resource.api_version(), resource.kind);
  if (store == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(store->mutex);
    store->synced = true;
    // An own write of an object the list no longer holds, older than any read waits for, is
    // an object created and deleted while the watch was away: nothing will settle its record.
    const auto stale = Steady::now() - own_write_wait_;
    for (auto it = store->writes.begin(); it != store->writes.end();) {
      if (it->second.at < stale && store->entries.count(it->first) == 0) {
        it = store->writes.erase(it);
      } else {
        ++it;
      }
    }
  }
  store->changed.notify_all();
}

bool ObjectCache::synced() const {
  return unsynced().empty();
}

std::vector<std::string> ObjectCache::unsynced() const {
  std::vector<std::string> out;
  for (const auto& [key, store] : stores_) {
    std::lock_guard<std::mutex> lock(store->mutex);
    if (!store->synced) out.push_back(key);
  }
  return out;
}

ObjectCache::Read ObjectCache::get(std::string_view api_version, std::string_view kind,
                                   std::string_view ns, std::string_view name) const {
  Read read;
  const Store* store = store_of(api_version, kind);
  if (store == nullptr || !store->covers(ns)) return read;
  const std::string key = store->key(ns, name);
  std::shared_ptr<const std::string> text;
  {
    std::unique_lock<std::mutex> lock(store->mutex);
    if (!store->synced) return read;
    if (!store->wait_for_own_write(lock, key, Steady::now() + own_write_wait_)) return read;
    const auto it = store->entries.find(key);
    if (it == store->entries.end()) {
      read.hit = Hit::kAbsent;
      return read;
    }
    if (!it->second.text) return read;  // kept by name only
    text = it->second.text;
  }
  json::error_code ec;
  json::value value = json::parse(*text, ec);
  if (ec || !value.is_object()) return read;
  read.hit = Hit::kFound;
  read.object = std::move(value.get_object());
  return read;
}

std::vector<std::string> ObjectCache::keys(const kube::Resource& resource) const {
  std::vector<std::string> out;
  const Store* store = store_of(resource.api_version(), resource.kind);
  if (store == nullptr) return out;
  std::lock_guard<std::mutex> lock(store->mutex);
  out.reserve(store->entries.size());
  for (const auto& [key, entry] : store->entries) out.push_back(key);
  return out;
}

void ObjectCache::wrote(std::string_view api_version, std::string_view kind, std::string_view ns,
                        std::string_view name, const json::object& answer,
                        std::string applied_digest) {
  Store* store = store_of(api_version, kind);
  if (store == nullptr || !store->covers(ns)) return;
  const std::string key = store->key(ns, name);
  std::string version = resource_version(answer);
  std::lock_guard<std::mutex> lock(store->mutex);
  if (version.empty()) {
    store->writes.erase(key);  // nothing to wait for (a server that answers without one)
    return;
  }
  Store::OwnWrite write{std::move(version), std::move(applied_digest), false, false, Steady::now()};
  // The watch may have delivered the write before the writer got here.
  if (const auto it = store->entries.find(key); it != store->entries.end()) {
    if (it->second.version == write.version) {
      write.seen = true;
    } else if (version_at_least(it->second.version, write.version)) {
      store->writes.erase(key);  // already superseded
      return;
    }
  }
  if (write.seen && write.digest.empty()) {
    store->writes.erase(key);
    return;
  }
  store->writes[key] = std::move(write);
}

void ObjectCache::deleted(std::string_view api_version, std::string_view kind, std::string_view ns,
                          std::string_view name, const json::object& answer) {
  Store* store = store_of(api_version, kind);
  if (store == nullptr || !store->covers(ns)) return;
  const std::string key = store->key(ns, name);
  std::lock_guard<std::mutex> lock(store->mutex);
  // Not in the store: its DELETED already came (or its ADDED never did: then reads find nothing).
  if (store->entries.count(key) == 0) {
    store->writes.erase(key);
    return;
  }
  store->writes[key] = Store::OwnWrite{resource_version(answer), {}, true, false, Steady::now()};
}

bool ObjectCache::unchanged_since_apply(std::string_view api_version, std::string_view kind,
                                        std::string_view ns, std::string_view name,
                                        std::string_view digest) const {
  const Store* store = store_of(api_version, kind);
  if (store == nullptr || digest.empty() || !store->covers(ns)) return false;
  const std::string key = store->key(ns, name);
  std::unique_lock<std::mutex> lock(store->mutex);
  if (!store->synced) return false;
  if (!store->wait_for_own_write(lock, key, Steady::now() + own_write_wait_)) return false;
  const auto write = store->writes.find(key);
  if (write == store->writes.end() || write->second.digest != digest) return false;
  const auto entry = store->entries.find(key);
  return entry != store->entries.end() && entry->second.version == write->second.version;
}

Result<void> run_informer(
    kube::Client& client, const kube::Resource& resource, const std::string& ns,
    const kube::CancelToken& cancel, ObjectCache& cache,
    const std::function<void(const kube::WatchEvent&, const ObjectCache::Change&)>& on_change,
    const std::function<void()>& on_listed) {
  kube::WatchOptions options;
  options.cancel = cancel;
  options.all_namespaces = ns.empty();
  options.on_listed = [&] {
    cache.listed(resource);
    if (on_listed) on_listed();
  };
  return client.watch(resource, ns, options, [&](const kube::WatchEvent& event) {
    if (event.type == kube::WatchEventType::kBookmark) return true;
    const auto change = cache.apply(resource, event);
    if (on_change) on_change(event, change);
    return true;
  });
}

ObjectCache::Size ObjectCache::size() const {
  Size size;
  for (const auto& [key, store] : stores_) {
    std::lock_guard<std::mutex> lock(store->mutex);
    for (const auto& [object_key, entry] : store->entries) {
      if (entry.text) {
        ++size.kept;
      } else {
        ++size.names;
      }
    }
    size.writes += store->writes.size();
  }
  return size;
}

}  // namespace trainer::controller::detail
