// SPDX-License-Identifier: Apache-2.0
//
// Framing of a watch response: a chunked body holding one JSON document per event
// (`{"type":"ADDED","object":{...}}`, reference section 7.2). A document may be split across
// chunks and one chunk may hold several, so documents are cut by a streaming JSON parser, never
// by reads or newlines.
#pragma once

#include "trainer/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/stream_parser.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace trainer::kube::detail {

class WatchFramer {
 public:
  /// `max_document_bytes`: ClientOptions::max_watch_event_bytes.
  explicit WatchFramer(std::size_t max_document_bytes = std::size_t{16} << 20U);
  /// Parses `data`, calling `on_document` for each complete document in order. Returns false
  /// when `on_document` returned false (the rest of `data` is dropped), `kParse` when the
  /// stream is not a sequence of JSON documents, `kLimit` as soon as one document is longer
  /// than `max_document_bytes` (what arrived of it is dropped).
  Result<bool> feed(std::string_view data,
                    const std::function<bool(boost::json::value&&)>& on_document);
  /// True when part of a document is buffered (the stream ended mid-event).
  [[nodiscard]] bool pending() const noexcept { return pending_; }

 private:
  boost::json::stream_parser parser_;
  std::size_t max_document_bytes_;
  std::size_t pending_bytes_ = 0;  // of the document being parsed
  bool pending_ = false;
};

/// A watch event as sent: `type` is `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK` or `ERROR`.
struct RawWatchEvent {
  std::string type;
  boost::json::object object;
};

/// Splits one document into its type and object; `kParse` when it is not an event.
[[nodiscard]] Result<RawWatchEvent> decode_event(boost::json::value&& document);

}  // namespace trainer::kube::detail
