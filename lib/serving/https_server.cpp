// SPDX-License-Identifier: Apache-2.0
#include "serving/https_server.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>

namespace trainer::serving {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

// ---- CertificateStore ----------------------------------------------------------------------

struct CertificateStore::Impl {
  mutable std::mutex mutex;
  std::shared_ptr<ssl::context> context;
  std::string cert_pem;
  std::uint64_t generation = 0;
};

CertificateStore::CertificateStore() : impl_(std::make_unique<Impl>()) {}
CertificateStore::~CertificateStore() = default;

Result<void> CertificateStore::set(const std::string& cert_pem, const std::string& key_pem) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  boost::system::error_code ec;
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                           ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                           ssl::context::no_tlsv1_1 | ssl::context::single_dh_use,
                       ec);
  if (!ec && SSL_CTX_set_min_proto_version(context->native_handle(), TLS1_2_VERSION) != 1) {
    return fail(ErrorCode::kInternal, "TLS: cannot require TLS 1.2");
  }
  if (ec) return fail(ErrorCode::kInternal, "TLS: " + ec.message());
  context->use_certificate_chain(asio::buffer(cert_pem), ec);
  if (ec) {
    return fail(ErrorCode::kInvalidArgument, "tls.crt: not a PEM certificate: " + ec.message());
  }
  {
    // Parsed alone first: OpenSSL's use_private_key reports a key of another certificate too.
    BIO* bio = BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size()));
    EVP_PKEY* key =
        bio == nullptr ? nullptr : PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    ERR_clear_error();
    if (key == nullptr) return fail(ErrorCode::kInvalidArgument, "tls.key: not a PEM private key");
    EVP_PKEY_free(key);
  }
  context->use_private_key(asio::buffer(key_pem), ssl::context::pem, ec);
  if (ec || SSL_CTX_check_private_key(context->native_handle()) != 1) {
    ERR_clear_error();
    return fail(ErrorCode::kInvalidArgument, "tls.key: does not belong to tls.crt");
  }
  std::lock_guard lock(impl_->mutex);
  impl_->context = std::move(context);
  impl_->cert_pem = cert_pem;
  ++impl_->generation;
  return {};
}

bool CertificateStore::ready() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->context != nullptr;
}

std::string CertificateStore::certificate_pem() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->cert_pem;
}

std::uint64_t CertificateStore::generation() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->generation;
}

std::shared_ptr<ssl::context> CertificateStore::current_context() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->context;
}

// ---- routes --------------------------------------------------------------------------------

namespace {

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> segments;
  std::size_t start = 1;  // after the leading '/'
  while (start <= path.size()) {
    const auto slash = path.find('/', start);
    const auto end = slash == std::string_view::npos ? path.size() : slash;
    segments.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return segments;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX decoding of one path segment; nullopt when malformed.
std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int high = hex_value(text[i + 1]);
    const int low = hex_value(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return out;
}

struct CompiledRoute {
  Route route;
  struct Segment {
    std::string text;
    bool param = false;
  };
  std::vector<Segment> segments;
};

Result<CompiledRoute> compile_route(Route route, const std::string& server) {
  const auto bad = [&](const std::string& why) {
    return fail(ErrorCode::kInvalidArgument,
                server + ": route " + route.method + " " + route.pattern + ": " + why);
  };
  if (route.method.empty()) return bad("no method");
  if (route.pattern.empty() || route.pattern.front() != '/')
    return bad("the path must start with /");
  if (!route.handler) return bad("no handler");
  CompiledRoute compiled;
  for (const auto segment : split_path(route.pattern)) {
    CompiledRoute::Segment part;
    if (segment.size() >= 2 && segment.front() == '{' && segment.back() == '}') {
      part.text = std::string(segment.substr(1, segment.size() - 2));
      part.param = true;
      if (part.text.empty() || part.text.find_first_of("{}") != std::string::npos) {
        return bad("a parameter segment is {name}");
      }
    } else {
      if (segment.find_first_of("{}") != std::string_view::npos) {
        return bad("a parameter must be a whole segment");
      }
      part.text = std::string(segment);
    }
    compiled.segments.push_back(std::move(part));
  }
  compiled.route = std::move(route);
  return compiled;
}

// Whether `path` matches; the decoded parameters go to `params`.
bool match(const CompiledRoute& route, std::string_view path,
           std::vector<std::pair<std::string, std::string>>& params) {
  if (path.empty() || path.front() != '/') return false;
  const auto segments = split_path(path);
  if (segments.size() != route.segments.size()) return false;
  std::vector<std::pair<std::string, std::string>> found;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const auto& want = route.segments[i];
    if (!want.param) {
      if (segments[i] != want.text) return false;
      continue;
    }
    if (segments[i].empty()) return false;
    auto value = percent_decode(segments[i]);
    if (!value || value->empty() || value->find('/') != std::string::npos) return false;
    found.emplace_back(want.text, std::move(*value));
  }
  params = std::move(found);
  return true;
}

Response text_response(int status, std::string body) {
  Response response;
  response.status = status;
  response.content_type = "text/plain; charset=utf-8";
  response.body = std::move(body);
  return response;
}

}  // namespace

// ---- the server ----------------------------------------------------------------------------

class SessionBase {
 public:
  virtual ~SessionBase() = default;
  virtual void close_if_idle() = 0;
};

struct HttpsServer::Impl {
  ServerOptions options;
  std::vector<CompiledRoute> routes;
  std::uint16_t port = 0;

  // Before io: handlers that io still holds when destroyed end sessions that touch these.
  std::atomic<int> connections{0};
  std::atomic<bool> stopping{false};
  std::mutex sessions_mutex;
  std::condition_variable sessions_gone;
  std::unordered_map<SessionBase*, std::weak_ptr<SessionBase>> sessions;
  std::mutex stop_mutex;
  bool stopped = false;

  asio::io_context io;
  tcp::acceptor acceptor{asio::make_strand(io)};
  std::vector<std::thread> threads;

  void accept();
  void on_accept(tcp::socket socket);
  void report(const std::string& what) const {
    if (options.on_error) options.on_error(options.name + ": " + what);
  }
  void add(const std::shared_ptr<SessionBase>& session) {
    std::lock_guard lock(sessions_mutex);
    sessions.emplace(session.get(), session);
  }
  void remove(SessionBase* session) {
    {
      std::lock_guard lock(sessions_mutex);
      sessions.erase(session);
    }
    --connections;
    sessions_gone.notify_all();
  }
  // The answer of a request: the route's handler, the 405 or the fallback.
  Response dispatch(Request& request, const CompiledRoute* route, bool path_matched);
};

namespace {

constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
// What is read and dropped of an unread body before its connection closes (Go's server: 256 KiB).
constexpr std::size_t kDiscardBytes = 256 * 1024;
constexpr std::chrono::seconds kDiscardTime{1};

// One connection: optional TLS handshake, then requests one after the other (keep-alive), each
// read under read_timeout (the wait for a kept-alive connection's next request under
// idle_timeout) and answered under write_timeout.
template <class Stream>
class Session : public SessionBase, public std::enable_shared_from_this<Session<Stream>> {
 public:
  // `context`: the TLS context of this connection (kept even after a rotation); null for HTTP.
  Session(HttpsServer::Impl& server, tcp::socket socket, std::shared_ptr<ssl::context> context)
      : server_(server),
        context_(std::move(context)),
        stream_(make_stream(std::move(socket), context_.get())) {}
  ~Session() override { server_.remove(this); }

  void start(std::string remote) {
    remote_ = std::move(remote);
    if constexpr (kTls) {
      lowest().expires_after(server_.options.read_timeout);
      stream_.async_handshake(ssl::stream_base::server,
                              [self = this->shared_from_this()](beast::error_code ec) {
                                if (ec) return self->close_now();
                                self->wait_for_request();
                              });
    } else {
      wait_for_request();
    }
  }

  void close_if_idle() override {
    asio::post(stream_.get_executor(), [self = this->shared_from_this()] {
      if (self->idle_) self->close_now();
    });
  }

 private:
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

  beast::tcp_stream& lowest() { return beast::get_lowest_layer(stream_); }

  static Stream make_stream(tcp::socket socket, ssl::context* context) {
    if constexpr (kTls) {
      return Stream(std::move(socket), *context);
    } else {
      (void)context;
      return Stream(std::move(socket));
    }
  }

  // Waits (idle_timeout) for the first bytes of the next request, then reads it (read_timeout).
  void wait_for_request() {
    if (server_.stopping) return close_gracefully();
    idle_ = true;
    if (buffer_.size() > 0) return read_header();
    lowest().expires_after(first_ ? server_.options.read_timeout : server_.options.idle_timeout);
    stream_.async_read_some(buffer_.prepare(server_.options.header_limit),
                            [self = this->shared_from_this()](beast::error_code ec, std::size_t n) {
                              if (ec) return self->close_now();
                              self->buffer_.commit(n);
                              self->read_header();
                            });
  }

  void read_header() {
    idle_ = false;
    first_ = false;
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(server_.options.header_limit));
    // No body limit while the head is read: Beast would refuse a declared Content-Length over it
    // as the head completes, before the route's own answer (a 413) can be sent. The route's
    // limit is set before its body is read.
    parser_->body_limit(boost::none);
    lowest().expires_after(server_.options.read_timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                              if (ec == http::error::header_limit) {
                                return self->answer_and_close(
                                    text_response(431, "431 Request Header Fields Too Large"), 11);
                              }
                              if (ec) return self->close_now();
                              self->route_request();
                            });
  }

  void route_request() {
    const auto& header = parser_->get();
    request_ = Request{};
    request_.method = std::string(header.method_string());
    request_.target = std::string(header.target());
    request_.path = request_.target.substr(0, request_.target.find('?'));
    for (const auto& field : header) {
      request_.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    request_.remote_address = remote_;
    version_ = header.version();
    keep_alive_ = header.keep_alive() && server_.options.keep_alive;
    head_ = header.method() == http::verb::head;

    route_ = nullptr;
    path_matched_ = false;
    for (const auto& route : server_.routes) {
      std::vector<std::pair<std::string, std::string>> params;
      if (!match(route, request_.path, params)) continue;
      path_matched_ = true;
      if (route.route.method == request_.method || (head_ && route.route.method == "GET")) {
        route_ = &route;
        request_.params = std::move(params);
        break;
      }
    }
    const bool has_body = parser_->chunked() || parser_->content_length().value_or(0) > 0;
    // A client that waits for `100 Continue` (curl does for bodies over 1 KiB) has sent no body
    // yet: it gets the interim answer only when its body is wanted, and nothing is left unread
    // when it is not.
    const bool expects_continue =
        version_ == 11 && beast::iequals(header[http::field::expect], "100-continue");
    unread_body_ = has_body && !expects_continue;
    if (route_ == nullptr) {
      // The body is not read: the answer closes the connection when one was sent.
      if (has_body) keep_alive_ = false;
      return answer(server_.dispatch(request_, nullptr, path_matched_));
    }
    const auto limit = route_->route.body_limit;
    if (parser_->content_length() && *parser_->content_length() > limit) return too_large();
    if (parser_->is_done()) return answer(server_.dispatch(request_, route_, true));
    parser_->body_limit(limit);
    if (expects_continue) {
      lowest().expires_after(server_.options.write_timeout);
      return asio::async_write(
          stream_, asio::buffer(kContinue, sizeof kContinue - 1),
          [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
            if (ec) return self->close_now();
            self->read_body();
          });
    }
    read_body();
  }

  void read_body() {
    lowest().expires_after(server_.options.read_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                       if (ec == http::error::body_limit) {
                         self->unread_body_ = true;
                         return self->too_large();
                       }
                       if (ec) return self->close_now();
                       self->unread_body_ = false;
                       self->request_.body = std::move(self->parser_->get().body());
                       self->answer(self->server_.dispatch(self->request_, self->route_, true));
                     });
  }

  void too_large() {
    keep_alive_ = false;
    Response response;
    if (route_->route.too_large) {
      try {
        response = route_->route.too_large(request_);
      } catch (const std::exception& e) {
        server_.report(std::string("too_large answer threw: ") + e.what());
        response = text_response(413, "request body too large");
      }
    } else {
      response = text_response(413, "request body too large");
    }
    answer(std::move(response));
  }

  void answer_and_close(Response response, unsigned version) {
    keep_alive_ = false;
    version_ = version;
    head_ = false;
    answer(std::move(response));
  }

  void answer(Response response) {
    if (server_.stopping) keep_alive_ = false;
    response_.emplace();
    response_->version(version_);
    response_->result(static_cast<unsigned>(response.status));
    response_->set(http::field::content_type, response.content_type);
    for (const auto& [name, value] : response.headers) response_->insert(name, value);
    response_->body() = std::move(response.body);
    response_->keep_alive(keep_alive_);
    response_->prepare_payload();
    if (head_) response_->body().clear();
    lowest().expires_after(server_.options.write_timeout);
    http::async_write(stream_, *response_,
                      [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec) return self->close_now();
                        if (!self->keep_alive_ && self->unread_body_)
                          return self->discard_and_close();
                        if (!self->keep_alive_) return self->close_gracefully();
                        self->response_.reset();
                        self->wait_for_request();
                      });
  }

  // After an answer to a request whose body was not read (too large, no route): a client still
  // sending it would get a reset, and lose the answer, if the socket closed with its bytes
  // unread. As Go's server does, what it sends is read and dropped for a while first (bounded
  // in time and bytes); a plain connection says it is done writing at once.
  void discard_and_close() {
    unread_body_ = false;
    if constexpr (!kTls) {
      beast::error_code ignored;
      lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
    }
    discard_left_ = kDiscardBytes;
    lowest().expires_after(kDiscardTime);
    discard_some();
  }

  void discard_some() {
    buffer_.consume(buffer_.size());
    stream_.async_read_some(buffer_.prepare(16 * 1024),
                            [self = this->shared_from_this()](beast::error_code ec, std::size_t n) {
                              if (ec || n >= self->discard_left_) return self->close_gracefully();
                              self->discard_left_ -= n;
                              self->discard_some();
                            });
  }

  void close_gracefully() {
    idle_ = false;
    if constexpr (kTls) {
      lowest().expires_after(server_.options.write_timeout);
      stream_.async_shutdown(
          [self = this->shared_from_this()](beast::error_code) { self->close_now(); });
    } else {
      beast::error_code ignored;
      lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
      close_now();
    }
  }

  void close_now() {
    idle_ = false;
    lowest().close();
  }

  HttpsServer::Impl& server_;
  std::shared_ptr<ssl::context> context_;  // before stream_, which uses it
  Stream stream_;
  std::string remote_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::string_body>> response_;
  Request request_;
  const CompiledRoute* route_ = nullptr;
  bool path_matched_ = false;
  unsigned version_ = 11;
  bool keep_alive_ = false;
  bool unread_body_ = false;  // the request's body (or part of it) was not read
  std::size_t discard_left_ = 0;
  bool head_ = false;
  bool idle_ = false;  // waiting for a request's first byte: stop() closes the connection
  bool first_ = true;  // no request read yet: the wait is under read_timeout
};

}  // namespace

Response HttpsServer::Impl::dispatch(Request& request, const CompiledRoute* route,
                                     bool path_matched) {
  try {
    if (route != nullptr) return route->route.handler(request);
    if (path_matched) {
      std::string allow;
      for (const auto& candidate : routes) {
        std::vector<std::pair<std::string, std::string>> params;
        if (!match(candidate, request.path, params)) continue;
        if (!allow.empty()) allow += ", ";
        allow += candidate.route.method;
        if (candidate.route.method == "GET") allow += ", HEAD";
      }
      auto response = text_response(405, "method not allowed\n");
      response.headers.emplace_back("Allow", allow);
      return response;
    }
    if (options.fallback) return options.fallback(request);
    return text_response(404, "404 page not found\n");
  } catch (const std::exception& e) {
    report("handler of " + request.method + " " + request.path + " threw: " + e.what());
  } catch (...) {
    report("handler of " + request.method + " " + request.path + " threw");
  }
  return text_response(500, "internal server error\n");
}

void HttpsServer::Impl::accept() {
  acceptor.async_accept(asio::make_strand(io), [this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || stopping) return;  // closed: the server stops
    if (!ec) on_accept(std::move(socket));
    accept();
  });
}

void HttpsServer::Impl::on_accept(tcp::socket socket) {
  if (connections.load() >= options.max_connections) return;  // the socket closes here
  beast::error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  std::string remote =
      ec ? std::string() : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  if (options.certificates) {
    auto context = options.certificates->current_context();
    if (!context) return;  // no certificate (cannot happen after start): refuse
    ++connections;
    auto session = std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
        *this, std::move(socket), std::move(context));
    add(session);
    session->start(std::move(remote));
  } else {
    ++connections;
    auto session = std::make_shared<Session<beast::tcp_stream>>(*this, std::move(socket), nullptr);
    add(session);
    session->start(std::move(remote));
  }
}

Result<std::unique_ptr<HttpsServer>> HttpsServer::start(ServerOptions options) {
  const auto bad = [&](const std::string& why) {
    return fail(ErrorCode::kInvalidArgument, options.name + ": " + why);
  };
  if (options.port < 0 || options.port > 65535) {
    return bad("port " + std::to_string(options.port) + " is not from 0 to 65535");
  }
  if (options.max_connections < 1) return bad("max_connections must be at least 1");
  if (options.threads < 1) return bad("threads must be at least 1");
  if (options.header_limit < 256) return bad("header_limit must be at least 256 bytes");
  if (options.certificates && !options.certificates->ready()) {
    return bad("TLS without a certificate");
  }
  std::string host = options.bind_address;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host == "localhost") host = "127.0.0.1";
  if (host.empty()) host = "0.0.0.0";
  boost::system::error_code parse_error;
  const auto ip = asio::ip::make_address(host, parse_error);
  if (parse_error) return bad("bind address \"" + options.bind_address + "\" is not an IP address");

  auto impl = std::make_unique<Impl>();
  for (auto& route : options.routes) {
    auto compiled = compile_route(std::move(route), options.name);
    if (!compiled) return tl::unexpected(std::move(compiled.error()));
    impl->routes.push_back(std::move(*compiled));
  }
  options.routes.clear();
  impl->options = std::move(options);

  const tcp::endpoint endpoint(ip, static_cast<std::uint16_t>(impl->options.port));
  beast::error_code ec;
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return fail(ErrorCode::kIo, impl->options.name + ": cannot listen on " + host + ":" +
                                    std::to_string(impl->options.port) + ": " + ec.message());
  }
  impl->port = impl->acceptor.local_endpoint(ec).port();
  impl->accept();
  Impl& running = *impl;
  for (int i = 0; i < impl->options.threads; ++i) {
    impl->threads.emplace_back([&running] { running.io.run(); });
  }
  return std::unique_ptr<HttpsServer>(new HttpsServer(std::move(impl)));
}

HttpsServer::HttpsServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpsServer::~HttpsServer() {
  stop();
}

void HttpsServer::stop() noexcept {
  std::lock_guard stop_lock(impl_->stop_mutex);
  if (impl_->stopped) return;
  impl_->stopped = true;
  impl_->stopping = true;
  asio::post(impl_->acceptor.get_executor(), [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor.close(ignored);
  });
  {
    std::vector<std::shared_ptr<SessionBase>> open;
    {
      std::lock_guard lock(impl_->sessions_mutex);
      for (auto& [raw, weak] : impl_->sessions) {
        if (auto session = weak.lock()) open.push_back(std::move(session));
      }
    }
    for (auto& session : open) session->close_if_idle();
  }
  {
    std::unique_lock lock(impl_->sessions_mutex);
    impl_->sessions_gone.wait_for(lock, impl_->options.shutdown_timeout,
                                  [&] { return impl_->connections.load() == 0; });
  }
  impl_->io.stop();
  for (auto& thread : impl_->threads) {
    if (thread.joinable()) thread.join();
  }
}

std::uint16_t HttpsServer::port() const {
  return impl_->port;
}

int HttpsServer::connections() const {
  return impl_->connections.load();
}

}  // namespace trainer::serving
