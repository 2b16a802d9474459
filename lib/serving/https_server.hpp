// SPDX-License-Identifier: Apache-2.0
// The one HTTP(S) server of libtrainer (admission webhooks, the TrainJobStatus progress server,
// `trainerctl controller --metrics-addr`): Boost.Beast over Boost.Asio, TLS through OpenSSL.
//
// It moves bytes and enforces bounds before any handler sees a request: the header size, each
// route's body limit (checked against the declared Content-Length before the body is read, and
// while reading a chunked one), the read, write and idle (keep-alive) timeouts, and the number of
// connections at once. Handlers run on the server's small thread pool; one that throws answers 500
// and the server goes on. With TLS (1.2 and later) every new handshake takes the certificate that
// the CertificateStore holds at that moment, so a rotated certificate is served without a restart.
#pragma once

#include "serving/http_message.hpp"
#include "trainer/error.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace trainer::serving {

/// The serving certificate and key, swapped atomically. Thread-safe: `set` from any thread while
/// the servers that share the store handshake with the previous one until it returns.
class CertificateStore {
 public:
  CertificateStore();
  ~CertificateStore();
  CertificateStore(const CertificateStore&) = delete;
  CertificateStore& operator=(const CertificateStore&) = delete;

  /// Replaces the certificate (PEM; the leaf first, then its chain, if any) and its private key
  /// (PEM, PKCS#8 or traditional). Errors: kInvalidArgument when either does not parse or the key
  /// does not belong to the certificate; the previous certificate stays then.
  [[nodiscard]] Result<void> set(const std::string& cert_pem, const std::string& key_pem);
  /// Whether a certificate was set.
  [[nodiscard]] bool ready() const;
  /// The certificate PEM that new handshakes present; empty before the first `set`.
  [[nodiscard]] std::string certificate_pem() const;
  /// Counts successful `set` calls (a test waits for a rotation with it).
  [[nodiscard]] std::uint64_t generation() const;

  struct Impl;
  /// The TLS context of the current certificate, null before the first `set`; shared so that a
  /// connection keeps the one it started with. For the server.
  [[nodiscard]] std::shared_ptr<boost::asio::ssl::context> current_context() const;

 private:
  std::unique_ptr<Impl> impl_;
};

/// One route: a method and a path, exact (`/metrics`) or a pattern whose `{name}` segments match
/// one non-empty path segment each (`/apis/trainer.kubeflow.org/v1alpha1/namespaces/{namespace}/
/// trainjobs/{name}/status`); the matched values are in `Request::params`.
struct Route {
  std::string method;  ///< `GET` (also serves HEAD, without the body), `POST`, ...
  std::string pattern;
  Handler handler;
  /// The largest request body this route reads; a longer one is answered with `too_large` (a
  /// declared Content-Length before reading it) and the connection is closed.
  std::size_t body_limit = 1024 * 1024;
  /// The answer to an oversized body; empty: 413 `request body too large`.
  std::function<Response(const Request&)> too_large;
};

struct ServerOptions {
  /// Names the server in errors and logs: `webhook server`, `status server`, `metrics server`.
  std::string name = "server";
  /// An IP address (`0.0.0.0`, `::`, `127.0.0.1`) or `localhost`.
  std::string bind_address = "0.0.0.0";
  int port = 0;  ///< 0: any free port (`HttpsServer::port()` tells which)
  /// The certificate to serve; null: plain HTTP.
  std::shared_ptr<CertificateStore> certificates;
  std::vector<Route> routes;
  /// The answer when no route's path matches; empty: 404 `404 page not found` (text/plain).
  /// A matching path with another method is answered 405 with an Allow header.
  Handler fallback;
  /// Request line and headers together.
  std::size_t header_limit = 8 * 1024;
  /// Reading one request (TLS handshake included), writing one answer, waiting for the next
  /// request on a kept-alive connection (upstream's status server: 10 s, 10 s, 120 s).
  std::chrono::milliseconds read_timeout{std::chrono::seconds(10)};
  std::chrono::milliseconds write_timeout{std::chrono::seconds(10)};
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(120)};
  /// Connections beyond this many at once are closed on accept, unanswered.
  int max_connections = 128;
  int threads = 2;  ///< handler threads
  bool keep_alive = true;
  /// `stop()` lets in-flight requests finish for this long, then closes every connection.
  std::chrono::milliseconds shutdown_timeout{std::chrono::seconds(5)};
  /// Called for a handler that threw and for connection errors worth a log line; may be empty.
  std::function<void(const std::string&)> on_error;
};

class HttpsServer {
 public:
  /// Binds, listens and starts the threads. Errors: kInvalidArgument (a bad address, port, route
  /// pattern or bound; TLS with a store that holds no certificate yet), kIo (cannot listen).
  [[nodiscard]] static Result<std::unique_ptr<HttpsServer>> start(ServerOptions options);
  ~HttpsServer();  ///< `stop()`
  HttpsServer(const HttpsServer&) = delete;
  HttpsServer& operator=(const HttpsServer&) = delete;

  /// The bound port (the chosen one when the options asked for 0).
  [[nodiscard]] std::uint16_t port() const;
  /// Stops accepting, finishes in-flight requests within `shutdown_timeout`, closes every
  /// connection and joins the threads. Idempotent; not from a handler.
  void stop() noexcept;
  /// Connections open now (tests).
  [[nodiscard]] int connections() const;

  struct Impl;

 private:
  explicit HttpsServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainer::serving
