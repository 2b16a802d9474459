// SPDX-License-Identifier: Apache-2.0
#include "support/fault_server.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <sstream>
#include <thread>

namespace trainer::testing {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

const std::string* RecordedRequest::header(std::string_view lowercase_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lowercase_name) return &value;
  }
  return nullptr;
}

struct FaultServer::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  mutable std::mutex mutex;
  mutable std::condition_variable changed;
  bool stopping = false;
  std::deque<FaultResponse> queue;
  std::vector<RecordedRequest> requests;
  int connections = 0;
  std::vector<int> open_fds;  // connections to shut down on stop
  std::vector<std::thread> workers;
  std::thread acceptor_thread;

  void accept_loop();
  void serve(tcp::socket socket, int number);
  bool answer(tcp::socket& socket, const FaultResponse& response);
  // Sleeps `duration` unless the server stops first (then false).
  bool pause(std::chrono::milliseconds duration) {
    std::unique_lock<std::mutex> lock(mutex);
    return !changed.wait_for(lock, duration, [&] { return stopping; });
  }
  bool is_stopping() {
    const std::lock_guard<std::mutex> lock(mutex);
    return stopping;
  }
  // Keeps a connection open and silent until the peer closes it, the server stops or `limit`.
  void hold(tcp::socket& socket, std::chrono::milliseconds limit);
};

FaultServer::FaultServer() : impl_(std::make_unique<Impl>()) {
  boost::system::error_code ec;
  const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
  impl_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(endpoint, ec);
  if (!ec) impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    std::fprintf(stderr, "FaultServer: cannot listen on 127.0.0.1: %s\n", ec.message().c_str());
    std::abort();
  }
  port_ = impl_->acceptor.local_endpoint().port();
  impl_->acceptor_thread = std::thread([impl = impl_.get()] { impl->accept_loop(); });
}

FaultServer::~FaultServer() {
  {
    const std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
    // shutdown() wakes a thread blocked in accept() or read() on these sockets.
    for (const int fd : impl_->open_fds) ::shutdown(fd, SHUT_RDWR);
    impl_->changed.notify_all();
  }
  ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);
  impl_->acceptor_thread.join();
  // No worker is added after the acceptor thread ended.
  for (auto& worker : impl_->workers) worker.join();
}

std::string FaultServer::url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

void FaultServer::push(FaultResponse response) {
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->queue.push_back(std::move(response));
}

std::vector<RecordedRequest> FaultServer::requests() const {
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->requests;
}

int FaultServer::connections() const {
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->connections;
}

bool FaultServer::wait_for_requests(std::size_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  return impl_->changed.wait_for(lock, timeout, [&] { return impl_->requests.size() >= count; });
}

void FaultServer::Impl::accept_loop() {
  while (true) {
    tcp::socket socket(io);
    boost::system::error_code ec;
    acceptor.accept(socket, ec);
    const std::lock_guard<std::mutex> lock(mutex);
    if (stopping) return;
    if (ec) continue;
    const int number = ++connections;
    open_fds.push_back(socket.native_handle());
    // Threads are joined by the destructor; one per connection is plenty for tests.
    workers.emplace_back(
        [this, number, s = std::make_shared<tcp::socket>(std::move(socket))]() mutable {
          serve(std::move(*s), number);
        });
  }
}

void FaultServer::Impl::serve(tcp::socket socket, int number) {
  boost::beast::flat_buffer buffer;
  while (true) {
    http::request<http::string_body> request;
    boost::system::error_code ec;
    http::read(socket, buffer, request, ec);
    if (ec) break;
    FaultResponse response(404, {}, "no scripted response");
    {
      const std::lock_guard<std::mutex> lock(mutex);
      RecordedRequest record;
      record.method = std::string(request.method_string());
      record.target = std::string(request.target());
      for (const auto& field : request) {
        std::string name(field.name_string());
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        record.headers.emplace_back(std::move(name), std::string(field.value()));
      }
      record.body = request.body();
      record.connection = number;
      record.received = Clock::now();
      requests.push_back(std::move(record));
      const auto fits = std::find_if(queue.begin(), queue.end(), [&](const FaultResponse& r) {
        return r.match.empty() || requests.back().target.rfind(r.match, 0) == 0;
      });
      if (fits != queue.end()) {
        response = std::move(*fits);
        queue.erase(fits);
      }
      changed.notify_all();
    }
    if (!answer(socket, response) || !request.keep_alive()) break;
  }
  {
    const std::lock_guard<std::mutex> lock(mutex);
    open_fds.erase(std::remove(open_fds.begin(), open_fds.end(), socket.native_handle()),
                   open_fds.end());
  }
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
}

bool FaultServer::Impl::answer(tcp::socket& socket, const FaultResponse& response) {
  if (response.delay.count() > 0 && !pause(response.delay)) return false;
  const auto status = http::int_to_status(static_cast<unsigned>(response.status));
  std::ostringstream head;
  head << "HTTP/1.1 " << response.status << ' ' << http::obsolete_reason(status) << "\r\n";
  for (const auto& [name, value] : response.headers) head << name << ": " << value << "\r\n";
  const bool chunked = !response.chunks.empty();
  if (chunked) {
    head << "Transfer-Encoding: chunked\r\n";
  } else {
    // An endless body declares the largest length a client parses.
    constexpr auto kMaxLength = static_cast<std::uint64_t>(INT64_MAX);
    const std::uint64_t size = response.body.size();
    const std::uint64_t total = response.repeat != 0 && size > kMaxLength / response.repeat
                                    ? kMaxLength
                                    : size * response.repeat;
    head << "Content-Length: " << total << "\r\n";
  }
  head << "\r\n";
  boost::system::error_code ec;
  const auto send = [&](const std::string& bytes) {
    if (!ec) asio::write(socket, asio::buffer(bytes), ec);
    return !ec;
  };
  if (!send(head.str())) return false;
  if (!chunked) {
    const std::size_t length = response.cut_after
                                   ? std::min(*response.cut_after, response.body.size())
                                   : response.body.size();
    const std::string piece = response.body.substr(0, length);
    for (std::size_t i = 0; i < response.repeat; ++i) {
      if (!send(piece) || is_stopping()) return false;
    }
  } else {
    for (std::size_t i = 0; i < response.chunks.size(); ++i) {
      const auto& piece = response.chunks[i];
      const bool last = i + 1 == response.chunks.size();
      for (std::size_t n = 0; n < (last ? response.repeat : 1); ++n) {
        if (piece.delay.count() > 0 && !pause(piece.delay)) return false;
        if (piece.data.empty()) continue;  // a zero-size chunk would end the body
        std::ostringstream chunk;
        chunk << std::hex << piece.data.size() << "\r\n" << piece.data << "\r\n";
        if (!send(chunk.str()) || is_stopping()) return false;
      }
    }
  }
  if (response.hold) {
    hold(socket, response.hold_limit);
    return false;
  }
  if (response.cut || response.cut_after) return false;
  if (chunked && !send("0\r\n\r\n")) return false;
  return true;
}

void FaultServer::Impl::hold(tcp::socket& socket, std::chrono::milliseconds limit) {
  const auto until = Clock::now() + limit;
  while (Clock::now() < until && !is_stopping()) {
    pollfd entry{socket.native_handle(), POLLIN, 0};
    // Readable: the peer closed or reset the connection (or sent something, which a client
    // waiting for this answer does not); either way the hold is over.
    if (::poll(&entry, 1, 50) != 0) return;
  }
}

}  // namespace trainer::testing
