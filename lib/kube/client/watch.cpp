// SPDX-License-Identifier: Apache-2.0
//
// Client::watch: client-go's reflector loop (reference section 7.4) delivering events instead of
// filling a store. List first when no version is given; watch from the last version seen; a
// stream that ends or drops is resumed from that version without relisting (after a bounded,
// cancellable backoff when it failed); 410 Expired, as an answer or as an ERROR event inside
// the 200 stream, relists and delivers the difference against the objects known.
#include "api/backoff.hpp"
#include "kube/client/cancellable_wait.hpp"
#include "kube/client/client_impl.hpp"
#include "kube/client/paths.hpp"
#include "kube/client/relist_diff.hpp"
#include "kube/client/watch_stream.hpp"
#include "trainer/json_path.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>

namespace trainer::kube {
namespace {

using Clock = std::chrono::steady_clock;

// client-go's reflector backoff: 800 ms doubling between failing attempts, each wait jittered
// by up to its own length (jitter 1.0) so that many watchers of a restarted server do not come
// back in step, and capped at 30 s.
class Backoff {
 public:
  std::chrono::milliseconds next() { return std::min(detail::jittered(delays_.next(), 1.0), kMax); }
  void reset() { delays_.reset(); }

 private:
  static constexpr std::chrono::milliseconds kMax{30000};
  trainer::detail::ExponentialBackoff delays_{std::chrono::milliseconds(800), kMax};
};

std::string seconds_text(std::chrono::milliseconds wait) {
  const auto ms = wait.count();
  return std::to_string(ms / 1000) + "." + std::to_string(ms % 1000 / 100) + "s";
}

// Errors after which the watch is resumed (connection lost, server overloaded or restarting)
// rather than ended.
bool resumable(const Error& error) {
  if (error.http_status == 0) {
    return error.code == ErrorCode::kIo || error.code == ErrorCode::kTimeout ||
           error.code == ErrorCode::kParse;
  }
  return error.http_status == 429 || error.http_status >= 500;
}

std::optional<WatchEventType> event_type(const std::string& type) {
  if (type == "ADDED") return WatchEventType::kAdded;
  if (type == "MODIFIED") return WatchEventType::kModified;
  if (type == "DELETED") return WatchEventType::kDeleted;
  if (type == "BOOKMARK") return WatchEventType::kBookmark;
  return std::nullopt;
}

// What one watch request ended with, besides the transport's answer.
struct StreamOutcome {
  bool stopped = false;        // on_event returned false
  bool expired = false;        // an ERROR event with 410
  std::optional<Error> error;  // an ERROR event or an undecodable stream
  std::size_t events = 0;
};

}  // namespace

Result<void> Client::watch(const Resource& resource, std::string_view ns,
                           const WatchOptions& options,
                           const std::function<bool(const WatchEvent&)>& on_event) {
  const std::string scope =
      options.all_namespaces || !resource.namespaced ? "" : impl_->namespace_or_default(ns);
  auto path = detail::resource_path(resource, scope, "");
  if (!path) return tl::unexpected(path.error());
  const auto context = detail::context_for("GET", resource, "");

  detail::KnownObjects known;
  std::string version = options.resource_version;
  bool need_list = version.empty();
  Backoff backoff;
  const auto& on_log = impl_->client_options.on_log;
  const std::string watched = "watch of " + context.resource +
                              (scope.empty() ? std::string() : " in namespace \"" + scope + "\"");
  // Every retry is logged with its cause and its wait, as client-go's reflector does: a watch
  // that can never succeed (a server sending garbage) is visible, not a silent loop.
  const auto back_off = [&](const std::string& why) -> Result<void> {
    const auto wait = backoff.next();
    if (on_log) {
      try {
        on_log(watched + " failed, retrying in " + seconds_text(wait) + ": " + why);
      } catch (...) {
        // A log sink that throws loses that line, not the watch.
      }
    }
    if (!detail::sleep_until(Clock::now() + wait, options.cancel)) {
      return fail(ErrorCode::kCancelled, "the watch was cancelled");
    }
    return {};
  };

  for (;;) {
    if (options.cancel.cancelled()) return fail(ErrorCode::kCancelled, "the watch was cancelled");
    if (need_list) {
      ListOptions list_options;
      list_options.cancel = options.cancel;
      list_options.timeout = options.timeout;
      list_options.label_selector = options.label_selector;
      list_options.field_selector = options.field_selector;
      list_options.all_namespaces = options.all_namespaces;
      auto list = impl_->list_all(resource, ns, list_options);
      if (!list) {
        if (!resumable(list.error())) return tl::unexpected(list.error());
        if (auto ok = back_off("list: " + list.error().message); !ok) return ok;
        continue;
      }
      static const boost::json::array kNoItems;
      const auto* items = trainer::find_array(*list, "items");
      for (const auto& event : detail::relist_events(known, items ? *items : kNoItems, resource)) {
        if (!on_event(event)) return {};
      }
      const auto* metadata = trainer::find_object(*list, "metadata");
      version = metadata ? trainer::find_string(*metadata, "resourceVersion").value_or("") : "";
      need_list = false;
      if (options.on_listed) options.on_listed();
    }

    detail::Query query;
    query.add("watch", "true");
    query.add_if("resourceVersion", version);
    if (options.bookmarks) query.add("allowWatchBookmarks", "true");
    query.add("timeoutSeconds",
              std::to_string(std::max<std::int64_t>(
                  1, static_cast<std::int64_t>(options.request_timeout.count()))));
    query.add_if("labelSelector", options.label_selector);
    query.add_if("fieldSelector", options.field_selector);
    auto request = detail::make_request("GET", *path + query.str(), options);

    StreamOutcome outcome;
    detail::WatchFramer framer(impl_->client_options.max_watch_event_bytes);
    const auto on_document = [&](boost::json::value&& document) {
      auto event = detail::decode_event(std::move(document));
      if (!event) {
        outcome.error = event.error();
        return false;
      }
      if (event->type == "ERROR") {
        Error error = detail::error_from_status(event->object, 500);
        if (detail::is_expired(error)) {
          outcome.expired = true;
        } else {
          outcome.error = std::move(error);
        }
        return false;
      }
      const auto type = event_type(event->type);
      if (!type) return true;  // a type this client does not know: skip it, as client-go does
      ++outcome.events;
      const std::string event_version = detail::object_resource_version(event->object);
      if (!event_version.empty()) version = event_version;
      detail::remember(known, *type, event->object);
      if (!on_event(WatchEvent{*type, std::move(event->object)})) {
        outcome.stopped = true;
        return false;
      }
      return true;
    };
    request.on_data = [&](std::string_view data) {
      auto fed = framer.feed(data, on_document);
      if (!fed) {
        outcome.error = fed.error();
        outcome.error->message = "GET " + request.target + ": " + outcome.error->message;
      }
      return fed && *fed;
    };

    const auto started = Clock::now();
    auto response = impl_->send(request, context);
    if (outcome.stopped) return {};
    if (outcome.expired) {
      // The version was compacted: watching from it again would fail forever; relist (after
      // a backoff when the watch delivered nothing, so that a server answering 410 to every
      // watch is not asked in a loop).
      need_list = true;
      if (outcome.events == 0) {
        if (auto ok = back_off("the resource version " + version +
                               " is too old (410 Expired), relisting");
            !ok) {
          return ok;
        }
      }
      continue;
    }
    if (outcome.error) {
      if (!resumable(*outcome.error)) return tl::unexpected(*outcome.error);
      if (auto ok = back_off(outcome.error->message); !ok) return ok;
      continue;
    }
    if (!response) {
      const Error& error = response.error();
      if (error.code == ErrorCode::kCancelled) return tl::unexpected(error);
      if (detail::is_expired(error)) {
        need_list = true;
        if (auto ok = back_off(error.message + ", relisting"); !ok) return ok;
        continue;
      }
      if (!resumable(error)) return tl::unexpected(error);
      if (outcome.events > 0) backoff.reset();
      if (auto ok = back_off(error.message); !ok) return ok;
      continue;
    }
    // A clean end (timeoutSeconds ran out): resume at once. A stream that ended within a
    // second without an event counts as a failure (client-go's "very short watch").
    if (outcome.events == 0 && Clock::now() - started < std::chrono::seconds(1)) {
      if (auto ok = back_off("the watch ended within a second without an event"); !ok) {
        return ok;
      }
    } else {
      backoff.reset();
    }
  }
}

}  // namespace trainer::kube
