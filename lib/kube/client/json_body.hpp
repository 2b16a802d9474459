// SPDX-License-Identifier: Apache-2.0
//
// Decoding of API server answers: JSON bodies and the one-document-at-a-time parser that watch
// streams need. Kubernetes objects nest deeper than Boost.JSON's default limit of 32 (managed
// fields of a JobSet reach about 20 levels inside a watch event), so every parse here allows more.
#pragma once

#include "trainer/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse_options.hpp>

#include <boost/json/value.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace trainer::kube::detail {

/// Parse options for API server JSON: depth bound 512 (client-go has no bound of its own; a
/// bound keeps a malicious server from exhausting the stack).
[[nodiscard]] boost::json::parse_options api_parse_options() noexcept;

/// `body` as a JSON object; `kParse` naming `what` (`the answer to GET /api`) otherwise.
[[nodiscard]] Result<boost::json::object> parse_object(std::string_view body,
                                                       std::string_view what);
/// A decoded body as a JSON object; `kParse` naming `what` when it is another JSON value.
[[nodiscard]] Result<boost::json::object> object_of(boost::json::value&& value,
                                                    std::string_view what);

/// A byte limit as its option is usually set: `256 MiB`, `64 KiB`, `1000 bytes`.
[[nodiscard]] std::string size_text(std::size_t bytes);

}  // namespace trainer::kube::detail
