// SPDX-License-Identifier: Apache-2.0
#include "metrics_server.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <charconv>
#include <thread>
#include <utility>

namespace trainerctl {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

// Prometheus' text exposition format, version 0.0.4.
constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";
// A scrape request is a request line and a few headers: anything larger is not one.
constexpr std::uint32_t kHeaderLimit = 8 * 1024;
constexpr std::uint64_t kBodyLimit = 1024;

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
  MetricsServerOptions options;
  // Before io: sessions still queued in io when it is destroyed decrement it.
  int connections = 0;  // only touched on the io thread
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  std::uint16_t port = 0;  // read before the thread starts: the acceptor is the io thread's
  std::thread thread;

  void accept();
  void serve(tcp::socket socket);
};

namespace {

// One connection: one request, one answer, then the connection is closed (no keep-alive, so
// an idle scraper holds nothing). Both the read and the write run under io_timeout.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, MetricsServer::Impl& server)
      : stream_(std::move(socket)), server_(server) {
    parser_.header_limit(kHeaderLimit);
    parser_.body_limit(kBodyLimit);
  }
  ~Session() { --server_.connections; }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void start() {
    stream_.expires_after(server_.options.io_timeout);
    http::async_read(stream_, buffer_, parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (!ec) self->answer();
                     });
  }

 private:
  void answer() {
    const auto& request = parser_.get();
    response_.version(request.version());
    response_.keep_alive(false);
    response_.set(http::field::server, "trainerctl");
    const auto target = request.target();
    const auto path = target.substr(0, target.find('?'));
    if (path != "/metrics") {
      response_.result(http::status::not_found);
      response_.set(http::field::content_type, "text/plain; charset=utf-8");
      response_.body() = "404 page not found\n";
    } else if (request.method() != http::verb::get && request.method() != http::verb::head) {
      response_.result(http::status::method_not_allowed);
      response_.set(http::field::allow, "GET, HEAD");
      response_.set(http::field::content_type, "text/plain; charset=utf-8");
      response_.body() = "method not allowed\n";
    } else {
      response_.result(http::status::ok);
      response_.set(http::field::content_type, kContentType);
      if (request.method() == http::verb::get) response_.body() = server_.options.metrics();
    }
    response_.prepare_payload();
    if (request.method() == http::verb::head) response_.body().clear();
    stream_.expires_after(server_.options.io_timeout);
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code, std::size_t) {
                        beast::error_code ignored;
                        self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                      });
  }

  beast::tcp_stream stream_;
  MetricsServer::Impl& server_;
  beast::flat_buffer buffer_{kHeaderLimit};
  http::request_parser<http::string_body> parser_;
  http::response<http::string_body> response_;
};

}  // namespace

void MetricsServer::Impl::accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;  // closed: the server stops
    if (!ec) serve(std::move(socket));
    accept();
  });
}

void MetricsServer::Impl::serve(tcp::socket socket) {
  if (connections >= options.max_connections) return;  // the socket closes here
  ++connections;
  std::make_shared<Session>(std::move(socket), *this)->start();
}

trainer::Result<std::unique_ptr<MetricsServer>> MetricsServer::start(MetricsServerOptions options) {
  auto address = parse_loopback_address(options.address);
  if (!address) return tl::unexpected(std::move(address.error()));
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  const tcp::endpoint endpoint(asio::ip::make_address(address->first), address->second);
  beast::error_code ec;
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return trainer::fail(trainer::ErrorCode::kIo, "--metrics-addr " + impl->options.address +
                                                      ": cannot listen: " + ec.message());
  }
  impl->port = impl->acceptor.local_endpoint(ec).port();
  impl->accept();
  Impl& running = *impl;
  impl->thread = std::thread([&running] { running.io.run(); });
  return std::unique_ptr<MetricsServer>(new MetricsServer(std::move(impl)));
}

MetricsServer::MetricsServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

MetricsServer::~MetricsServer() {
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::uint16_t MetricsServer::port() const {
  return impl_->port;
}

}  // namespace trainerctl
