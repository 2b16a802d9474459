// SPDX-License-Identifier: Apache-2.0
#include "metrics_server.hpp"

#include "serving/https_server.hpp"

#include <boost/asio/ip/address.hpp>

#include <charconv>
#include <utility>

namespace trainerctl {

namespace asio = boost::asio;

namespace {

// Prometheus' text exposition format, version 0.0.4.
constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";
// A scrape request is a request line and a few headers: anything larger is not one.
constexpr std::size_t kHeaderLimit = 8 * 1024;
constexpr std::size_t kBodyLimit = 1024;

}  // namespace

trainer::Result<std::pair<std::string, std::uint16_t>> parse_loopback_address(
    const std::string& address) {
  const auto bad = [&](const std::string& why) {
    return trainer::fail(trainer::ErrorCode::kInvalidArgument,
                         "invalid --metrics-addr \"" + address + "\": " + why);
  };
  const auto colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0) return bad("want HOST:PORT, e.g. 127.0.0.1:8080");
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string port_text = address.substr(colon + 1);
  unsigned port = 0;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      port > 65535) {
    return bad("the port must be a number from 0 to 65535");
  }
  if (host == "localhost") host = "127.0.0.1";
  boost::system::error_code parse_error;
  const auto ip = asio::ip::make_address(host, parse_error);
  if (parse_error) return bad("the host must be an IP address (127.0.0.1 or ::1)");
  // The metrics are unauthenticated: they are only ever served to this machine.
  if (!ip.is_loopback()) return bad("only a loopback address (127.0.0.0/8, ::1) is served");
  return std::make_pair(host, static_cast<std::uint16_t>(port));
}

struct MetricsServer::Impl {
  std::unique_ptr<trainer::serving::HttpsServer> server;
};

trainer::Result<std::unique_ptr<MetricsServer>> MetricsServer::start(MetricsServerOptions options) {
  auto address = parse_loopback_address(options.address);
  if (!address) return tl::unexpected(std::move(address.error()));
  trainer::serving::ServerOptions server;
  server.name = "metrics server";
  server.bind_address = address->first;
  server.port = address->second;
  server.header_limit = kHeaderLimit;
  server.read_timeout = options.io_timeout;
  server.write_timeout = options.io_timeout;
  server.idle_timeout = options.io_timeout;
  server.max_connections = options.max_connections;
  server.threads = 1;
  // One request, one answer, then the connection is closed: an idle scraper holds nothing.
  server.keep_alive = false;
  server.shutdown_timeout = options.io_timeout;
  trainer::serving::Route route;
  route.method = "GET";  // and HEAD
  route.pattern = "/metrics";
  route.body_limit = kBodyLimit;
  route.handler = [metrics = std::move(options.metrics)](const trainer::serving::Request& request) {
    trainer::serving::Response response;
    response.content_type = kContentType;
    if (request.method == "GET") response.body = metrics();
    return response;
  };
  server.routes.push_back(std::move(route));
  auto started = trainer::serving::HttpsServer::start(std::move(server));
  if (!started) {
    return trainer::fail(trainer::ErrorCode::kIo,
                         "--metrics-addr " + options.address + ": " + started.error().message);
  }
  auto impl = std::make_unique<Impl>();
  impl->server = std::move(*started);
  return std::unique_ptr<MetricsServer>(new MetricsServer(std::move(impl)));
}

MetricsServer::MetricsServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

MetricsServer::~MetricsServer() {
  impl_->server->stop();
}

std::uint16_t MetricsServer::port() const {
  return impl_->server->port();
}

}  // namespace trainerctl
