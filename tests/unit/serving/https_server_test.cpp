// SPDX-License-Identifier: Apache-2.0
// HttpsServer over real sockets: TLS verified by libcurl against the issuing CA, routes and
// parameters, the 404/405 answers, every bound (header, body, time, connections), keep-alive,
// certificate hot swap and a throwing handler.
#include "serving/https_server.hpp"
#include "serving/certificates.hpp"
#include "wait_until.hpp"

#include <curl/curl.h>
#include <catch2/catch.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

using namespace trainer::serving;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using trainer::testing::wait_until;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

Response text(std::string body) {
  Response response;
  response.content_type = "text/plain";
  response.body = std::move(body);
  return response;
}

ServerOptions plain_options() {
  ServerOptions options;
  options.name = "test server";
  options.bind_address = "127.0.0.1";
  Route hello;
  hello.method = "GET";
  hello.pattern = "/hello";
  hello.handler = [](const Request&) { return text("hello"); };
  options.routes.push_back(hello);
  Route status;
  status.method = "POST";
  status.pattern =
      "/apis/trainer.kubeflow.org/v1alpha1/namespaces/{namespace}/trainjobs/{name}/status";
  status.body_limit = 64;
  status.handler = [](const Request& request) {
    return text(std::string(request.param("namespace")) + "/" + std::string(request.param("name")) +
                ":" + request.body);
  };
  status.too_large = [](const Request&) {
    Response response;
    response.status = 413;
    response.body = R"({"kind":"Status","message":"Payload too large","code":413})";
    return response;
  };
  options.routes.push_back(status);
  Route boom;
  boom.method = "GET";
  boom.pattern = "/boom";
  boom.handler = [](const Request&) -> Response { throw std::runtime_error("kaboom"); };
  options.routes.push_back(boom);
  return options;
}

std::unique_ptr<HttpsServer> start(ServerOptions options) {
  auto server = HttpsServer::start(std::move(options));
  REQUIRE(server);
  return std::move(*server);
}

// Sends `bytes` and reads until the server closes (or `limit` passes). `send_buffer`: the
// socket's send buffer, when not the system's default.
std::string exchange(std::uint16_t port, const std::string& bytes,
                     std::chrono::milliseconds limit = std::chrono::seconds(5),
                     int send_buffer = 0) {
  asio::io_context io;
  tcp::socket socket(io);
  socket.open(tcp::v4());
  if (send_buffer > 0) socket.set_option(asio::socket_base::send_buffer_size(send_buffer));
  socket.connect({asio::ip::make_address("127.0.0.1"), port});
  asio::write(socket, asio::buffer(bytes));
  std::string reply;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  socket.non_blocking(true);
  char chunk[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    boost::system::error_code ec;
    const auto n = socket.read_some(asio::buffer(chunk), ec);
    if (ec == asio::error::would_block) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    if (ec) break;
    reply.append(chunk, n);
  }
  return reply;
}

struct CurlReply {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string body;
};

std::size_t collect(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// GET https://<host>:<port><path> with `host` resolved to 127.0.0.1, verified against `ca_pem`.
CurlReply https_get(const std::string& host, std::uint16_t port, const std::string& path,
                    const std::string& ca_pem) {
  CurlReply reply;
  CURL* curl = curl_easy_init();
  REQUIRE(curl != nullptr);
  const std::string url = "https://" + host + ":" + std::to_string(port) + path;
  const std::string resolve_entry = host + ":" + std::to_string(port) + ":127.0.0.1";
  curl_slist* resolve = curl_slist_append(nullptr, resolve_entry.c_str());
  curl_blob blob{const_cast<char*>(ca_pem.data()), ca_pem.size(), CURL_BLOB_COPY};
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_RESOLVE, resolve);
  curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &blob);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 5000L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  reply.code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  curl_easy_cleanup(curl);
  curl_slist_free_all(resolve);
  return reply;
}

const std::vector<std::string> kHosts = {"webhook.kubeflow-system.svc", "127.0.0.1"};

}  // namespace

TEST_CASE("HttpsServer routes exact paths and {param} patterns", "[serving]") {
  auto server = start(plain_options());
  const auto hello =
      exchange(server->port(), "GET /hello?x=1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  CHECK_THAT(hello, StartsWith("HTTP/1.1 200 OK"));
  CHECK_THAT(hello, Contains("\r\n\r\nhello"));

  const std::string body = R"({"a":1})";
  const auto status = exchange(
      server->port(),
      "POST /apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs/my%2Djob/status "
      "HTTP/1.1\r\n"
      "Host: a\r\nConnection: close\r\nContent-Length: " +
          std::to_string(body.size()) + "\r\n\r\n" + body);
  CHECK_THAT(status, StartsWith("HTTP/1.1 200 OK"));
  CHECK_THAT(status, Contains("team-a/my-job:{\"a\":1}"));
}

TEST_CASE(
    "HttpsServer answers 404 to an unknown path, 405 to another method, 500 to a throwing handler",
    "[serving]") {
  std::string logged;
  auto options = plain_options();
  options.on_error = [&logged](const std::string& line) { logged = line; };
  auto server = start(options);
  const auto missing =
      exchange(server->port(), "GET /nope HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  CHECK_THAT(missing, StartsWith("HTTP/1.1 404 Not Found"));
  CHECK_THAT(missing, Contains("404 page not found"));
  const auto wrong =
      exchange(server->port(), "DELETE /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  CHECK_THAT(wrong, StartsWith("HTTP/1.1 405"));
  CHECK_THAT(wrong, Contains("Allow: GET, HEAD"));
  // Too few segments for the pattern: not a match.
  const auto partial =
      exchange(server->port(),
               "POST /apis/trainer.kubeflow.org/v1alpha1/namespaces/x/trainjobs//status "
               "HTTP/1.1\r\nHost: a\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
  CHECK_THAT(partial, StartsWith("HTTP/1.1 404"));
  const auto boom =
      exchange(server->port(), "GET /boom HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  CHECK_THAT(boom, StartsWith("HTTP/1.1 500"));
  CHECK_THAT(logged, Contains("kaboom"));
  // And the server goes on.
  CHECK_THAT(
      exchange(server->port(), "GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
      StartsWith("HTTP/1.1 200"));
}

TEST_CASE("HttpsServer's fallback answers unmatched requests", "[serving]") {
  auto options = plain_options();
  options.fallback = [](const Request& request) {
    Response response;
    response.status = 404;
    response.body = "no route for " + request.path;
    return response;
  };
  auto server = start(options);
  CHECK_THAT(exchange(server->port(), "GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
             Contains("no route for /x"));
}

TEST_CASE("HttpsServer bounds the header and each route's body", "[serving]") {
  auto server = start(plain_options());
  const std::string path = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ns/trainjobs/j/status";
  // A declared Content-Length over the route's limit is answered before the body is sent.
  const auto declared = exchange(
      server->port(), "POST " + path + " HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\n");
  CHECK_THAT(declared, StartsWith("HTTP/1.1 413"));
  CHECK_THAT(declared, Contains("Payload too large"));
  // A chunked body that grows past it too.
  const std::string chunk(100, 'x');
  const auto chunked =
      exchange(server->port(),
               "POST " + path + " HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n64\r\n" +
                   chunk + "\r\n0\r\n\r\n");
  CHECK_THAT(chunked, StartsWith("HTTP/1.1 413"));
  const auto header =
      exchange(server->port(),
               "GET /hello HTTP/1.1\r\nHost: a\r\nX-Big: " + std::string(10000, 'y') + "\r\n\r\n");
  CHECK_THAT(header, StartsWith("HTTP/1.1 431"));
  CHECK(wait_until([&] { return server->connections() == 0; }, 2s, 10ms));
}

TEST_CASE("HttpsServer reads and drops a body it refused before closing", "[serving]") {
  auto server = start(plain_options());
  const std::string path = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ns/trainjobs/j/status";
  // A client that sends its whole body before it reads (Python's urllib does) gets the answer,
  // not a reset: what it sends after the 413 is read and dropped, then the connection closes.
  // The body is more than the socket buffers hold (the client's is made small), so the client
  // is still writing when the answer goes out.
  const std::string body(240 * 1024, 'x');
  for (const std::string& target : {path, std::string("/nowhere")}) {
    const auto reply = exchange(server->port(),
                                "POST " + target + " HTTP/1.1\r\nHost: a\r\nContent-Length: " +
                                    std::to_string(body.size()) + "\r\n\r\n" + body,
                                std::chrono::seconds(5), 4096);
    CHECK_THAT(reply, StartsWith(target == path ? "HTTP/1.1 413" : "HTTP/1.1 404"));
  }
  // The server's side ends once the client closes (or the discard time passes).
  CHECK(wait_until([&] { return server->connections() == 0; }, 2s, 10ms));
}

TEST_CASE("HttpsServer answers Expect: 100-continue", "[serving]") {
  auto server = start(plain_options());
  const std::string path = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ns/trainjobs/j/status";
  asio::io_context io;
  tcp::socket socket(io);
  socket.connect({asio::ip::make_address("127.0.0.1"), server->port()});
  asio::write(socket, asio::buffer("POST " + path +
                                   " HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n"
                                   "Content-Length: 5\r\nConnection: close\r\n\r\n"));
  // The interim answer comes before any body byte is sent.
  std::string interim(25, '\0');
  asio::read(socket, asio::buffer(interim));
  CHECK(interim == "HTTP/1.1 100 Continue\r\n\r\n");
  asio::write(socket, asio::buffer(std::string("hello")));
  std::string reply;
  boost::system::error_code ec;
  asio::read(socket, asio::dynamic_buffer(reply), ec);
  CHECK_THAT(reply, StartsWith("HTTP/1.1 200"));
  CHECK_THAT(reply, Contains("ns/j:hello"));
  // A body over the limit is refused without the interim answer: the client sends nothing.
  const auto refused =
      exchange(server->port(), "POST " + path +
                                   " HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n"
                                   "Content-Length: 100000\r\n\r\n");
  CHECK_THAT(refused, StartsWith("HTTP/1.1 413"));
}

TEST_CASE("HttpsServer keeps a connection alive for several requests", "[serving]") {
  auto server = start(plain_options());
  const auto replies = exchange(server->port(),
                                "GET /hello HTTP/1.1\r\nHost: a\r\n\r\n"
                                "GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  std::size_t count = 0;
  for (auto at = replies.find("HTTP/1.1 200"); at != std::string::npos;
       at = replies.find("HTTP/1.1 200", at + 1)) {
    ++count;
  }
  CHECK(count == 2);
}

TEST_CASE("HttpsServer closes a slow client and an idle kept-alive connection", "[serving]") {
  auto options = plain_options();
  options.read_timeout = std::chrono::milliseconds(200);
  options.idle_timeout = std::chrono::milliseconds(300);
  auto server = start(options);
  // Half a request line, then nothing: closed after read_timeout, unanswered.
  const auto started = std::chrono::steady_clock::now();
  const auto slow = exchange(server->port(), "GET /hel", std::chrono::seconds(5));
  const auto waited = std::chrono::steady_clock::now() - started;
  CHECK(slow.empty());
  CHECK(waited < std::chrono::seconds(3));
  // One request answered, then idle: closed after idle_timeout.
  const auto idle_started = std::chrono::steady_clock::now();
  const auto idle =
      exchange(server->port(), "GET /hello HTTP/1.1\r\nHost: a\r\n\r\n", std::chrono::seconds(5));
  CHECK_THAT(idle, StartsWith("HTTP/1.1 200"));
  CHECK(std::chrono::steady_clock::now() - idle_started < std::chrono::seconds(3));
}

TEST_CASE("HttpsServer closes connections beyond max_connections", "[serving]") {
  auto options = plain_options();
  options.max_connections = 2;
  options.read_timeout = std::chrono::seconds(5);
  auto server = start(options);
  asio::io_context io;
  tcp::socket first(io);
  tcp::socket second(io);
  first.connect({asio::ip::make_address("127.0.0.1"), server->port()});
  second.connect({asio::ip::make_address("127.0.0.1"), server->port()});
  REQUIRE(wait_until([&] { return server->connections() == 2; }, 2s, 10ms));
  // The third is closed unanswered.
  const auto third =
      exchange(server->port(), "GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
               std::chrono::seconds(2));
  CHECK(third.empty());
  first.close();
  second.close();
  REQUIRE(wait_until([&] { return server->connections() == 0; }, 2s, 10ms));
  CHECK_THAT(
      exchange(server->port(), "GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
      StartsWith("HTTP/1.1 200"));
}

TEST_CASE("HttpsServer stops within its shutdown timeout with idle connections open", "[serving]") {
  auto options = plain_options();
  options.shutdown_timeout = std::chrono::seconds(2);
  auto server = start(options);
  asio::io_context io;
  tcp::socket idle(io);
  idle.connect({asio::ip::make_address("127.0.0.1"), server->port()});
  REQUIRE(wait_until([&] { return server->connections() == 1; }, 2s, 10ms));
  const auto started = std::chrono::steady_clock::now();
  server->stop();
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(1));
  server->stop();  // idempotent
}

TEST_CASE("HttpsServer refuses bad options", "[serving]") {
  auto options = plain_options();
  options.bind_address = "not-an-ip";
  CHECK(!HttpsServer::start(options));
  options = plain_options();
  options.routes[0].pattern = "/a/{x";
  auto bad = HttpsServer::start(options);
  REQUIRE(!bad);
  CHECK_THAT(bad.error().message, Contains("a parameter"));
  options = plain_options();
  options.certificates = std::make_shared<CertificateStore>();
  CHECK(!HttpsServer::start(options));  // TLS without a certificate
}

TEST_CASE("HttpsServer serves TLS a client verifies against the CA, and swaps certificates live",
          "[serving]") {
  const auto now = Clock::now();
  auto first = issue_certificates(kHosts, now);
  REQUIRE(first);
  auto store = std::make_shared<CertificateStore>();
  REQUIRE(store->set(first->serving.cert_pem, first->serving.key_pem));
  auto options = plain_options();
  options.certificates = store;
  auto server = start(options);

  auto ok = https_get("webhook.kubeflow-system.svc", server->port(), "/hello", first->ca.cert_pem);
  CHECK(ok.code == CURLE_OK);
  CHECK(ok.status == 200);
  CHECK(ok.body == "hello");
  // A name the certificate does not cover fails verification.
  auto wrong_name = https_get("other.example", server->port(), "/hello", first->ca.cert_pem);
  CHECK(wrong_name.code != CURLE_OK);

  // Rotation: a new CA and certificate; new handshakes get it without a restart.
  auto second = issue_certificates(kHosts, now);
  REQUIRE(second);
  REQUIRE(store->set(second->serving.cert_pem, second->serving.key_pem));
  CHECK(store->generation() == 2);
  auto old_ca =
      https_get("webhook.kubeflow-system.svc", server->port(), "/hello", first->ca.cert_pem);
  CHECK(old_ca.code != CURLE_OK);
  auto new_ca =
      https_get("webhook.kubeflow-system.svc", server->port(), "/hello", second->ca.cert_pem);
  CHECK(new_ca.code == CURLE_OK);
  CHECK(new_ca.status == 200);

  // Keep-alive over TLS: a second request on the same handle reuses the connection.
  {
    CURL* curl = curl_easy_init();
    REQUIRE(curl != nullptr);
    const std::string host = "webhook.kubeflow-system.svc";
    const std::string url = "https://" + host + ":" + std::to_string(server->port()) + "/hello";
    const std::string entry = host + ":" + std::to_string(server->port()) + ":127.0.0.1";
    curl_slist* resolve = curl_slist_append(nullptr, entry.c_str());
    curl_blob blob{const_cast<char*>(second->ca.cert_pem.data()), second->ca.cert_pem.size(),
                   CURL_BLOB_COPY};
    std::string body;
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_RESOLVE, resolve);
    curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &blob);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 5000L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    CHECK(curl_easy_perform(curl) == CURLE_OK);
    CHECK(curl_easy_perform(curl) == CURLE_OK);
    long new_connections = -1;
    curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &new_connections);
    CHECK(new_connections == 0);
    CHECK(body == "hellohello");
    curl_easy_cleanup(curl);
    curl_slist_free_all(resolve);
  }

  // A key that is not the certificate's is refused and the current one stays.
  CHECK(!store->set(first->serving.cert_pem, second->serving.key_pem));
  CHECK(store->certificate_pem() == second->serving.cert_pem);

  // Plain HTTP to the TLS port gets no answer.
  CHECK_THAT(
      exchange(server->port(), "GET /hello HTTP/1.1\r\nHost: a\r\n\r\n", std::chrono::seconds(2)),
      !Contains("hello"));
}
