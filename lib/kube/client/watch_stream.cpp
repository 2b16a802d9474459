// SPDX-License-Identifier: Apache-2.0
#include "kube/client/watch_stream.hpp"

#include "kube/client/json_body.hpp"

#include <cctype>
#include <utility>

namespace trainer::kube::detail {

WatchFramer::WatchFramer(std::size_t max_document_bytes)
    : parser_({}, api_parse_options()), max_document_bytes_(max_document_bytes) {}

Result<bool> WatchFramer::feed(std::string_view data,
                               const std::function<bool(boost::json::value&&)>& on_document) {
  while (!data.empty()) {
    // Whitespace between documents (the server ends each with a newline) is not a pending
    // document: skip it here so that pending() means "an event was cut off".
    if (!pending_) {
      std::size_t skip = 0;
      while (skip < data.size() && std::isspace(static_cast<unsigned char>(data[skip])) != 0) {
        ++skip;
      }
      data.remove_prefix(skip);
      if (data.empty()) break;
    }
    pending_ = true;
    boost::system::error_code ec;
    // At most one byte past the bound reaches the parser, so that a document that never ends
    // costs no more memory than the bound.
    const std::size_t left = max_document_bytes_ - pending_bytes_;
    const std::size_t take = left < data.size() ? left + 1 : data.size();
    // write_some stops after one complete document and leaves the rest unconsumed.
    const std::size_t used = parser_.write_some(data.data(), take, ec);
    if (ec) return fail(ErrorCode::kParse, "the watch stream is not JSON: " + ec.message());
    // The parser takes the whitespace after a document with it; that is not part of the event.
    std::size_t counted = used;
    if (parser_.done()) {
      while (counted > 0 && std::isspace(static_cast<unsigned char>(data[counted - 1])) != 0) {
        --counted;
      }
    }
    pending_bytes_ += counted;
    if (pending_bytes_ > max_document_bytes_) {
      parser_.reset();
      return fail(ErrorCode::kLimit, "a watch event exceeds the " + size_text(max_document_bytes_) +
                                         " limit (ClientOptions::max_watch_event_bytes)");
    }
    data.remove_prefix(used);
    if (!parser_.done()) continue;
    boost::json::value document = parser_.release();
    parser_.reset();
    pending_ = false;
    pending_bytes_ = 0;
    if (!on_document(std::move(document))) return false;
  }
  return true;
}

Result<RawWatchEvent> decode_event(boost::json::value&& document) {
  auto* event = document.if_object();
  auto* type = event != nullptr ? event->if_contains("type") : nullptr;
  auto* object = event != nullptr ? event->if_contains("object") : nullptr;
  if (type == nullptr || !type->is_string() || object == nullptr || !object->is_object()) {
    return fail(ErrorCode::kParse, "a watch event without a type and an object");
  }
  return RawWatchEvent{std::string(type->get_string()), std::move(object->get_object())};
}

}  // namespace trainer::kube::detail
