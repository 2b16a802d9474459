// SPDX-License-Identifier: Apache-2.0
//
// A TCP forwarder on 127.0.0.1 for tests that stop the API server under a running client: the
// client keeps one address while the server behind it restarts on another port, and a paused
// proxy drops every connection and refuses new ones (the server looks gone) while the test
// changes things behind it. Bytes are forwarded untouched, so TLS is end to end.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace trainer::testing {

class TcpProxy {
 public:
  explicit TcpProxy(std::uint16_t target_port);  ///< listens at once; throws when it cannot
  ~TcpProxy();
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  [[nodiscard]] std::uint16_t port() const { return port_; }
  void set_target(std::uint16_t target_port) { target_ = target_port; }
  /// Paused: open connections are closed (within 100 ms) and new ones closed on accept.
  void set_paused(bool paused);

 private:
  void accept_loop();
  void pump(int client, int upstream, unsigned generation);

  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<std::uint16_t> target_;
  std::atomic<bool> paused_{false};
  std::atomic<bool> stop_{false};
  std::atomic<unsigned> generation_{0};
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<std::thread> workers_;
};

/// The port of a `https://127.0.0.1:<port>` URL.
[[nodiscard]] std::uint16_t url_port(const std::string& url);

}  // namespace trainer::testing
