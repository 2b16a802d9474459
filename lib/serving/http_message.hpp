// SPDX-License-Identifier: Apache-2.0
// The request and answer one HTTP(S) exchange of libtrainer's servers carries (admission webhooks,
// the TrainJobStatus progress server, metrics). A handler is a plain function of the request, so
// each endpoint is tested without a socket, and the server (https_server.hpp) only moves bytes:
// it enforces the size, time and connection bounds before a handler sees anything.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::serving {

struct Request {
  std::string method;  ///< `GET`, `POST`, ... as sent
  std::string target;  ///< the request target as sent: path and query
  std::string path;    ///< `target` without the query
  std::vector<std::pair<std::string, std::string>> headers;  ///< names as sent
  std::string body;  ///< never more than the route's body limit
  std::string remote_address;
  /// The `{name}` segments of the route's pattern that matched, in pattern order (decoded).
  std::vector<std::pair<std::string, std::string>> params;

  /// The first header of this name, compared case-insensitively; empty when absent.
  std::string_view header(std::string_view name) const;
  /// The route parameter `{name}`; empty when the pattern has none of that name.
  std::string_view param(std::string_view name) const;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  ///< besides Content-Type/Length
};

using Handler = std::function<Response(const Request&)>;

}  // namespace trainer::serving
