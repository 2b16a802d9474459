// SPDX-License-Identifier: Apache-2.0
// Framing of watch streams (events split across chunks, several per chunk) and the events a
// relist delivers.
#include "kube/client/relist_diff.hpp"
#include "kube/client/watch_stream.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace trainer::kube;
using namespace trainer::kube::detail;

namespace {

std::string event(const std::string& type, const std::string& name, const std::string& rv) {
  return R"({"type":")" + type + R"(","object":{"kind":"TrainJob","metadata":{"name":")" + name +
         R"(","namespace":"ns","resourceVersion":")" + rv + "\"}}}\n";
}

// Feeds `stream` cut into pieces of `size` bytes; returns "TYPE name" per event.
std::vector<std::string> frame(const std::string& stream, std::size_t size) {
  WatchFramer framer;
  std::vector<std::string> seen;
  for (std::size_t at = 0; at < stream.size(); at += size) {
    auto fed = framer.feed(std::string_view(stream).substr(at, size), [&](auto&& document) {
      auto ev = decode_event(std::move(document));
      REQUIRE(ev);
      seen.push_back(ev->type + " " + object_key(ev->object));
      return true;
    });
    REQUIRE(fed);
    CHECK(*fed);
  }
  CHECK_FALSE(framer.pending());
  return seen;
}

}  // namespace

TEST_CASE("events are framed whatever the chunking") {
  const std::string stream = event("ADDED", "a", "1") + event("MODIFIED", "a", "2") + "\n  \n" +
                             event("DELETED", "b", "3");
  const std::vector<std::string> want{"ADDED ns/a", "MODIFIED ns/a", "DELETED ns/b"};
  for (std::size_t size :
       {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64}, stream.size()}) {
    CAPTURE(size);
    CHECK(frame(stream, size) == want);
  }
}

TEST_CASE("an event at max_document_bytes is framed, one byte more is kLimit") {
  const std::string one = event("ADDED", "a", "1");
  const std::string body = one.substr(0, one.size() - 1);  // without the newline
  for (std::size_t size : {std::size_t{1}, std::size_t{5}, one.size()}) {
    CAPTURE(size);
    WatchFramer exact(body.size());
    WatchFramer short_by_one(body.size() - 1);
    int n = 0;
    bool exact_ok = true;
    trainer::Result<bool> refused = true;
    // Two events in a row: the bound is per event, not per stream.
    const std::string stream = one + one;
    for (std::size_t at = 0; at < stream.size(); at += size) {
      const auto piece = std::string_view(stream).substr(at, size);
      auto fed = exact.feed(piece, [&](auto&&) { return ++n, true; });
      exact_ok = exact_ok && fed && *fed;
      if (refused) refused = short_by_one.feed(piece, [](auto&&) { return true; });
    }
    CHECK(exact_ok);
    CHECK(n == 2);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == trainer::ErrorCode::kLimit);
    CHECK(refused.error().message == "a watch event exceeds the " +
                                         std::to_string(body.size() - 1) +
                                         " bytes limit (ClientOptions::max_watch_event_bytes)");
  }
}

TEST_CASE("a cut-off event is pending, garbage is an error, a false callback stops") {
  WatchFramer framer;
  const std::string one = event("ADDED", "a", "1");
  int n = 0;
  REQUIRE(*framer.feed(one.substr(0, 10), [&](auto&&) { return ++n, true; }));
  CHECK(framer.pending());
  CHECK(n == 0);

  WatchFramer stopper;
  auto stopped = stopper.feed(one + one, [&](auto&&) { return ++n, false; });
  REQUIRE(stopped);
  CHECK_FALSE(*stopped);
  CHECK(n == 1);

  WatchFramer bad;
  auto fed = bad.feed("{\"type\": nope}", [](auto&&) { return true; });
  REQUIRE_FALSE(fed);
  CHECK(fed.error().code == trainer::ErrorCode::kParse);
  CHECK_FALSE(decode_event(boost::json::parse(R"({"type":"ADDED"})")));
}

TEST_CASE("deeply nested objects are framed (managedFields go past 32 levels)") {
  std::string deep = R"({"type":"ADDED","object":{"metadata":{"name":"d"},"x":)";
  for (int i = 0; i < 60; ++i) deep += R"({"a":)";
  deep += "1";
  for (int i = 0; i < 60; ++i) deep += "}";
  deep += "}}";
  CHECK(frame(deep, 5) == std::vector<std::string>{"ADDED d"});
}

TEST_CASE("a relist delivers ADDED, MODIFIED and DELETED against what was known") {
  Resource r;
  r.group = "trainer.kubeflow.org";
  r.version = "v1alpha1";
  r.kind = "TrainJob";
  KnownObjects known{{"ns/kept", "5"}, {"ns/changed", "6"}, {"ns/gone", "7"}};
  const auto items = boost::json::parse(R"([
    {"metadata":{"name":"kept","namespace":"ns","resourceVersion":"5"}},
    {"metadata":{"name":"changed","namespace":"ns","resourceVersion":"9"}},
    {"metadata":{"name":"new","namespace":"ns","resourceVersion":"10"}}])")
                         .get_array();
  const auto events = relist_events(known, items, r);
  REQUIRE(events.size() == 3);
  CHECK(events[0].type == WatchEventType::kModified);
  CHECK(object_key(events[0].object) == "ns/changed");
  CHECK(events[1].type == WatchEventType::kAdded);
  CHECK(object_key(events[1].object) == "ns/new");
  CHECK(events[2].type == WatchEventType::kDeleted);
  CHECK(object_key(events[2].object) == "ns/gone");
  CHECK(events[2].object.at("kind") == "TrainJob");
  CHECK(events[2].object.at("apiVersion") == "trainer.kubeflow.org/v1alpha1");
  CHECK(object_resource_version(events[2].object) == "7");
  CHECK(known == KnownObjects{{"ns/kept", "5"}, {"ns/changed", "9"}, {"ns/new", "10"}});

  remember(known, WatchEventType::kDeleted, events[1].object);
  CHECK(known.count("ns/new") == 0);
  CHECK(std::string(to_string(WatchEventType::kBookmark)) == "BOOKMARK");
}
