// SPDX-License-Identifier: Apache-2.0
#include "kube/client/watch_stream.hpp"

#include "kube/client/json_body.hpp"

#include <cctype>
#include <utility>

namespace trainer::kube::detail {

WatchFramer::WatchFramer() : parser_({}, api_parse_options()) {}

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
    // write_some stops after one complete document and leaves the rest unconsumed.
    const std::size_t used = parser_.write_some(data.data(), data.size(), ec);
    if (ec) return fail(ErrorCode::kParse, "the watch stream is not JSON: " + ec.message());
    data.remove_prefix(used);
    if (!parser_.done()) continue;
    boost::json::value document = parser_.release();
    parser_.reset();
    pending_ = false;
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
