// SPDX-License-Identifier: Apache-2.0
// The TCP rendezvous store: one all-gather of byte blobs through rank 0.
//
// Wire format (integers little-endian):
//   hello  (client -> rank 0): "TRDV" u32 version=1, u32 rank, u32 size, u64 len, len bytes
//   reply  (rank 0 -> client): i32 status; status 0: u32 n, then n x (u64 len, bytes);
//                              status < 0 (an ErrorCode): u64 len, message bytes
// Rank 0 binds the address `host` resolves to when it is a loopback address, and the wildcard
// address otherwise (the master address is usually this pod's own DNS name).
#include "trainer/collectives.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace trainer::collectives {
namespace {

using Clock = std::chrono::steady_clock;
constexpr char kMagic[4] = {'T', 'R', 'D', 'V'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHelloBytes = 4 + 4 + 4 + 4 + 8;

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_ = -1;
};

std::string errno_text(int e) {
  return std::string(std::strerror(e));
}

tl::unexpected<Error> io_error(const std::string& what, int e) {
  return fail(ErrorCode::kIo, what + ": " + errno_text(e));
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (left.count() <= 0) return 0;
  return static_cast<int>(std::min<long long>(left.count(), 1000 * 1000));
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFU));
}
void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFU));
}
std::uint64_t get_le(const char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  }
  return v;
}

// Reads exactly n bytes before the deadline. kTimeout on expiry, kIo on EOF or error.
Result<void> read_full(int fd, char* buf, std::size_t n, Clock::time_point deadline,
                       const std::string& peer) {
  std::size_t got = 0;
  while (got < n) {
    pollfd p{fd, POLLIN, 0};
    const int ms = remaining_ms(deadline);
    if (ms == 0) return fail(ErrorCode::kTimeout, "timed out reading from " + peer);
    const int rc = ::poll(&p, 1, ms);
    if (rc < 0) {
      if (errno == EINTR) continue;
      return io_error("poll " + peer, errno);
    }
    if (rc == 0) continue;
    const ssize_t r = ::recv(fd, buf + got, n - got, 0);
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return io_error("recv from " + peer, errno);
    }
    if (r == 0) return fail(ErrorCode::kIo, peer + " closed the connection");
    got += static_cast<std::size_t>(r);
  }
  return {};
}

Result<void> write_full(int fd, const std::string& data, Clock::time_point deadline,
                        const std::string& peer) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    pollfd p{fd, POLLOUT, 0};
    const int ms = remaining_ms(deadline);
    if (ms == 0) return fail(ErrorCode::kTimeout, "timed out writing to " + peer);
    const int rc = ::poll(&p, 1, ms);
    if (rc < 0) {
      if (errno == EINTR) continue;
      return io_error("poll " + peer, errno);
    }
    if (rc == 0) continue;
    const ssize_t w = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return io_error("send to " + peer, errno);
    }
    sent += static_cast<std::size_t>(w);
  }
  return {};
}

struct Resolved {
  sockaddr_storage addr{};
  socklen_t len = 0;
  int family = AF_INET;
};

Result<std::vector<Resolved>> resolve(const std::string& host, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
  if (rc != 0) {
    return fail(ErrorCode::kIo, "cannot resolve \"" + host + "\": " + ::gai_strerror(rc));
  }
  std::vector<Resolved> out;
  for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
    Resolved r;
    std::memcpy(&r.addr, a->ai_addr, a->ai_addrlen);
    r.len = a->ai_addrlen;
    r.family = a->ai_family;
    out.push_back(r);
  }
  ::freeaddrinfo(res);
  if (out.empty()) return fail(ErrorCode::kIo, "\"" + host + "\" has no address");
  return out;
}

bool is_loopback(const Resolved& r) {
  if (r.family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&r.addr);
    return (ntohl(in->sin_addr.s_addr) >> 24U) == 127U;
  }
  if (r.family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&r.addr);
    return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
  }
  return false;
}

std::string endpoint(const RendezvousOptions& o) {
  return o.host + ":" + std::to_string(o.port);
}

Result<Fd> listen_on(const RendezvousOptions& o) {
  auto addrs = resolve(o.host, o.port);
  if (!addrs) return tl::unexpected(addrs.error());
  Resolved bind_to = addrs->front();
  if (!is_loopback(bind_to)) {  // our own DNS name, usually: listen everywhere
    bind_to = Resolved{};
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&bind_to.addr);
    in6->sin6_family = AF_INET6;
    in6->sin6_addr = in6addr_any;
    in6->sin6_port = htons(o.port);
    bind_to.len = sizeof(sockaddr_in6);
    bind_to.family = AF_INET6;
  }
  for (int attempt = 0; attempt < 2; ++attempt) {
    Fd fd(::socket(bind_to.family, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) {
      if (bind_to.family == AF_INET6 && attempt == 0) {  // no IPv6: IPv4 wildcard
        bind_to = Resolved{};
        auto* in = reinterpret_cast<sockaddr_in*>(&bind_to.addr);
        in->sin_family = AF_INET;
        in->sin_addr.s_addr = htonl(INADDR_ANY);
        in->sin_port = htons(o.port);
        bind_to.len = sizeof(sockaddr_in);
        bind_to.family = AF_INET;
        continue;
      }
      return io_error("socket", errno);
    }
    const int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind_to.family == AF_INET6) {
      const int zero = 0;  // dual stack
      ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    }
    if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&bind_to.addr), bind_to.len) != 0) {
      return io_error("rank 0 cannot listen on " + endpoint(o), errno);
    }
    if (::listen(fd.get(), std::max(16, o.size)) != 0) {
      return io_error("listen on " + endpoint(o), errno);
    }
    return fd;
  }
  return fail(ErrorCode::kIo, "rank 0 cannot listen on " + endpoint(o));
}

std::string error_reply(const Error& e) {
  std::string out;
  put_u32(out, static_cast<std::uint32_t>(static_cast<int>(e.code)));
  put_u64(out, e.message.size());
  out += e.message;
  return out;
}

struct Client {
  Fd fd;
  int rank = -1;
};

Result<std::vector<std::string>> serve(const RendezvousOptions& o, std::string_view blob,
                                       Clock::time_point deadline) {
  auto listener = listen_on(o);
  if (!listener) return tl::unexpected(listener.error());
  std::vector<std::string> blobs(static_cast<std::size_t>(o.size));
  std::vector<bool> joined(static_cast<std::size_t>(o.size), false);
  blobs[0] = std::string(blob);
  joined[0] = true;
  std::vector<Client> clients;
  int count = 1;

  auto abort_all = [&](const Error& e) -> tl::unexpected<Error> {
    const std::string reply = error_reply(e);
    const auto soon = Clock::now() + std::chrono::seconds(1);
    for (Client& c : clients) (void)write_full(c.fd.get(), reply, soon, "rank");
    return tl::unexpected(e);
  };

  while (count < o.size) {
    pollfd p{listener->get(), POLLIN, 0};
    const int ms = remaining_ms(deadline);
    if (ms == 0) {
      std::vector<int> missing;
      for (std::size_t r = 0; r < joined.size(); ++r) {
        if (!joined[r]) missing.push_back(static_cast<int>(r));
      }
      std::string list;
      for (const int r : missing) list += (list.empty() ? "" : ", ") + std::to_string(r);
      return abort_all(Error(ErrorCode::kTimeout,
                             "rendezvous at " + endpoint(o) + " timed out after " +
                                 std::to_string(o.timeout.count()) +
                                 " ms: " + std::to_string(missing.size()) + " of " +
                                 std::to_string(o.size) + " ranks never joined: [" + list + "]"));
    }
    const int rc = ::poll(&p, 1, ms);
    if (rc < 0 && errno != EINTR) return abort_all(io_error("poll", errno).value());
    if (rc <= 0) continue;
    Fd fd(::accept4(listener->get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (fd.get() < 0) continue;
    char hello[kHelloBytes];
    // A peer that is not one of ours (or too slow) is dropped; it does not end the rendezvous.
    const auto hello_deadline = std::min(deadline, Clock::now() + std::chrono::seconds(5));
    if (!read_full(fd.get(), hello, sizeof hello, hello_deadline, "peer")) continue;
    if (std::memcmp(hello, kMagic, 4) != 0 || get_le(hello + 4, 4) != kVersion) continue;
    const auto rank = static_cast<std::int64_t>(get_le(hello + 8, 4));
    const auto size = static_cast<std::int64_t>(get_le(hello + 12, 4));
    const std::uint64_t len = get_le(hello + 16, 8);
    Client c{std::move(fd), static_cast<int>(rank)};
    if (size != o.size) {
      clients.push_back(std::move(c));
      return abort_all(Error(ErrorCode::kInvalid, "world size mismatch at " + endpoint(o) +
                                                      ": rank " + std::to_string(rank) +
                                                      " has world size " + std::to_string(size) +
                                                      ", rank 0 has " + std::to_string(o.size)));
    }
    if (rank <= 0 || rank >= o.size || joined[static_cast<std::size_t>(rank)]) {
      clients.push_back(std::move(c));
      return abort_all(
          Error(ErrorCode::kInvalid,
                "rendezvous at " + endpoint(o) + ": rank " + std::to_string(rank) +
                    (rank > 0 && rank < o.size ? " joined twice" : " is out of range") +
                    " (world size " + std::to_string(o.size) + ")"));
    }
    if (len > o.max_blob_bytes) {
      clients.push_back(std::move(c));
      return abort_all(Error(ErrorCode::kLimit, "rendezvous: rank " + std::to_string(rank) +
                                                    " sent " + std::to_string(len) +
                                                    " bytes, limit " +
                                                    std::to_string(o.max_blob_bytes)));
    }
    std::string& b = blobs[static_cast<std::size_t>(rank)];
    b.resize(static_cast<std::size_t>(len));
    if (auto ok =
            read_full(c.fd.get(), b.data(), b.size(), deadline, "rank " + std::to_string(rank));
        !ok) {
      b.clear();
      continue;  // that rank may reconnect
    }
    joined[static_cast<std::size_t>(rank)] = true;
    clients.push_back(std::move(c));
    ++count;
  }

  std::string reply;
  put_u32(reply, 0);
  put_u32(reply, static_cast<std::uint32_t>(o.size));
  for (const std::string& b : blobs) {
    put_u64(reply, b.size());
    reply += b;
  }
  for (Client& c : clients) {
    if (auto ok = write_full(c.fd.get(), reply, deadline, "rank " + std::to_string(c.rank)); !ok) {
      return tl::unexpected(ok.error());
    }
  }
  return blobs;
}

// Connects to rank 0, retrying (refused, unreachable, not yet resolvable) until the deadline.
Result<Fd> connect_with_retry(const RendezvousOptions& o, Clock::time_point deadline) {
  auto backoff = std::chrono::milliseconds(2);
  std::string last = "no attempt";
  for (;;) {
    auto addrs = resolve(o.host, o.port);
    if (!addrs) {
      last = addrs.error().message;
    } else {
      for (const Resolved& a : *addrs) {
        Fd fd(::socket(a.family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
        if (fd.get() < 0) {
          last = "socket: " + errno_text(errno);
          continue;
        }
        int rc = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&a.addr), a.len);
        if (rc != 0 && errno == EINPROGRESS) {
          pollfd p{fd.get(), POLLOUT, 0};
          rc = ::poll(&p, 1, std::max(1, remaining_ms(deadline)));
          int err = 0;
          socklen_t elen = sizeof err;
          if (rc == 1 && ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &elen) == 0 &&
              err == 0) {
            rc = 0;
          } else {
            last = rc == 0 ? std::string("connect timed out") : "connect: " + errno_text(err);
            rc = -1;
          }
        } else if (rc != 0) {
          last = "connect: " + errno_text(errno);
        }
        if (rc == 0) {
          const int one = 1;
          ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          return fd;
        }
      }
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      return fail(ErrorCode::kTimeout, "rank " + std::to_string(o.rank) +
                                           " could not reach the rendezvous at " + endpoint(o) +
                                           " within " + std::to_string(o.timeout.count()) +
                                           " ms (last error: " + last + ")");
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(backoff, deadline - now));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(100));
  }
}

Result<std::vector<std::string>> join(const RendezvousOptions& o, std::string_view blob,
                                      Clock::time_point deadline) {
  std::string hello(kMagic, 4);
  put_u32(hello, kVersion);
  put_u32(hello, static_cast<std::uint32_t>(o.rank));
  put_u32(hello, static_cast<std::uint32_t>(o.size));
  put_u64(hello, blob.size());
  hello.append(blob.data(), blob.size());
  const std::string peer = "rank 0 at " + endpoint(o);
  // rank 0 answers when every rank has joined or it gives up (its own timeout); allow a second
  // beyond ours for its error message to arrive.
  const auto reply_deadline = deadline + std::chrono::seconds(1);
  char status_bytes[4];
  Fd fd;
  for (;;) {
    auto connected = connect_with_retry(o, deadline);
    if (!connected) return tl::unexpected(connected.error());
    fd = std::move(*connected);
    auto got = write_full(fd.get(), hello, deadline, peer);
    if (got) got = read_full(fd.get(), status_bytes, 4, reply_deadline, peer);
    if (got) break;
    if (got.error().code == ErrorCode::kTimeout) {
      return fail(ErrorCode::kTimeout, "rank " + std::to_string(o.rank) + ": rendezvous at " +
                                           endpoint(o) + " did not complete within " +
                                           std::to_string(o.timeout.count()) + " ms");
    }
    // Closed or reset before any answer: the connection sat in the backlog of a listener that
    // was going away (rank 0's previous round on the same port). Connect again.
    if (Clock::now() >= deadline) return tl::unexpected(got.error());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const auto status = static_cast<std::int32_t>(get_le(status_bytes, 4));
  if (status != 0) {
    char len_bytes[8];
    if (auto ok = read_full(fd.get(), len_bytes, 8, reply_deadline, peer); !ok) {
      return tl::unexpected(ok.error());
    }
    std::string msg(std::min<std::uint64_t>(get_le(len_bytes, 8), 1U << 16U), '\0');
    if (auto ok = read_full(fd.get(), msg.data(), msg.size(), reply_deadline, peer); !ok) {
      return tl::unexpected(ok.error());
    }
    const ErrorCode code = status >= static_cast<int>(ErrorCode::kTimeout) && status < 0
                               ? static_cast<ErrorCode>(status)
                               : ErrorCode::kIo;
    return fail(code, "rank 0 ended the rendezvous: " + msg);
  }
  char n_bytes[4];
  if (auto ok = read_full(fd.get(), n_bytes, 4, reply_deadline, peer); !ok) {
    return tl::unexpected(ok.error());
  }
  const std::uint64_t n = get_le(n_bytes, 4);
  if (n != static_cast<std::uint64_t>(o.size)) {
    return fail(ErrorCode::kInvalid, "rendezvous: rank 0 answered with " + std::to_string(n) +
                                         " ranks, expected " + std::to_string(o.size));
  }
  std::vector<std::string> blobs(static_cast<std::size_t>(n));
  for (std::string& b : blobs) {
    char len_bytes[8];
    if (auto ok = read_full(fd.get(), len_bytes, 8, reply_deadline, peer); !ok) {
      return tl::unexpected(ok.error());
    }
    const std::uint64_t len = get_le(len_bytes, 8);
    if (len > o.max_blob_bytes) {
      return fail(ErrorCode::kLimit, "rendezvous: blob of " + std::to_string(len) + " bytes");
    }
    b.resize(static_cast<std::size_t>(len));
    if (auto ok = read_full(fd.get(), b.data(), b.size(), reply_deadline, peer); !ok) {
      return tl::unexpected(ok.error());
    }
  }
  return blobs;
}

}  // namespace

Result<std::vector<std::string>> tcp_rendezvous(const RendezvousOptions& options,
                                                std::string_view blob) {
  if (options.size < 1 || options.rank < 0 || options.rank >= options.size) {
    return fail(ErrorCode::kInvalidArgument,
                "tcp_rendezvous: rank " + std::to_string(options.rank) + " outside world size " +
                    std::to_string(options.size));
  }
  if (options.timeout.count() <= 0) {
    return fail(ErrorCode::kInvalidArgument, "tcp_rendezvous: timeout must be positive");
  }
  if (options.size == 1) return std::vector<std::string>{std::string(blob)};
  if (options.port == 0 || options.host.empty()) {
    return fail(ErrorCode::kInvalidArgument, "tcp_rendezvous: host and a non-zero port required");
  }
  if (blob.size() > options.max_blob_bytes) {
    return fail(ErrorCode::kLimit, "tcp_rendezvous: blob of " + std::to_string(blob.size()) +
                                       " bytes exceeds " + std::to_string(options.max_blob_bytes));
  }
  const auto deadline = Clock::now() + options.timeout;
  if (options.rank == 0) return serve(options, blob, deadline);
  return join(options, blob, deadline);
}

}  // namespace trainer::collectives
