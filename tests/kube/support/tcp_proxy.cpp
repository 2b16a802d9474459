// SPDX-License-Identifier: Apache-2.0
#include "support/tcp_proxy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <stdexcept>
#include <string>

namespace trainer::testing {
namespace {

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

bool send_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

std::uint16_t url_port(const std::string& url) {
  return static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
}

TcpProxy::TcpProxy(std::uint16_t target_port) : target_(target_port) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = loopback(0);
  socklen_t len = sizeof addr;
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 64) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw std::runtime_error("tcp proxy: cannot listen on 127.0.0.1");
  }
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

TcpProxy::~TcpProxy() {
  stop_ = true;
  acceptor_.join();
  std::vector<std::thread> workers;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    workers.swap(workers_);
  }
  for (auto& worker : workers) worker.join();
  ::close(listen_fd_);
}

void TcpProxy::set_paused(bool paused) {
  paused_ = paused;
  if (paused) ++generation_;
}

void TcpProxy::accept_loop() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    if (paused_) {
      ::close(client);
      continue;
    }
    const int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const sockaddr_in addr = loopback(target_);
    if (upstream < 0 ||
        ::connect(upstream, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
      if (upstream >= 0) ::close(upstream);
      ::close(client);
      continue;
    }
    const unsigned generation = generation_;
    const std::lock_guard<std::mutex> lock(mutex_);
    workers_.emplace_back(
        [this, client, upstream, generation] { pump(client, upstream, generation); });
  }
}

void TcpProxy::pump(int client, int upstream, unsigned generation) {
  std::array<char, 16384> buffer{};
  while (!stop_ && generation_ == generation) {
    std::array<pollfd, 2> fds{pollfd{client, POLLIN, 0}, pollfd{upstream, POLLIN, 0}};
    if (::poll(fds.data(), fds.size(), 100) <= 0) continue;
    bool open = true;
    for (std::size_t i = 0; i < 2 && open; ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t n = ::recv(fds[i].fd, buffer.data(), buffer.size(), 0);
      open =
          n > 0 && send_all(i == 0 ? upstream : client, buffer.data(), static_cast<std::size_t>(n));
    }
    if (!open) break;
  }
  ::close(client);
  ::close(upstream);
}

}  // namespace trainer::testing
