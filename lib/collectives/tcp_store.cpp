// SPDX-License-Identifier: Apache-2.0
// The TCP rendezvous store: one all-gather of byte blobs through rank 0, over sockets.
//
// The wire protocol (framing, proofs, the state of a round) is tcp_store_protocol.{hpp,cpp};
// this file moves its bytes. Rank 0 serves every connection from one poll() loop on
// non-blocking sockets: a slow or silent peer only holds its own connection, which is dropped
// when it has not authenticated within kHandshakeTimeout, and at most kMaxUnauthenticated
// connections wait to authenticate (the oldest is dropped for a new one).
// Rank 0 binds the address `host` resolves to when it is a loopback address, and the wildcard
// address otherwise (the master address is usually this pod's own DNS name).
#include "collectives/tcp_store.hpp"

#include "api/backoff.hpp"

#include "collectives/tcp_store_protocol.hpp"

#include <openssl/rand.h>

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
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace trainer::collectives {
namespace {

namespace st = detail::store;
using Clock = std::chrono::steady_clock;

/// How long a new connection may take to authenticate (HELLO and AUTH).
constexpr auto kHandshakeTimeout = std::chrono::seconds(5);
/// Connections waiting to authenticate at once; the oldest is dropped for a new one.
constexpr std::size_t kMaxUnauthenticated = 64;
/// Log lines rank 0 writes per round about dropped peers; the rest are counted.
constexpr int kMaxLogLines = 16;
/// Bytes read from one connection per turn of the loop (fairness between connections).
constexpr std::size_t kReadChunk = 64 * 1024;
constexpr int kReadsPerTurn = 16;
/// After every answer went out, how long rank 0 waits for the ranks to close their ends (so
/// that closing ours never resets a connection whose answer is still unread).
constexpr auto kLinger = std::chrono::seconds(1);

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
    // The kernel's longest queue: a burst of connections (a flood, or thousands of ranks at
    // once) waits there for the loop instead of being refused or retried a second later.
    if (::listen(fd.get(), SOMAXCONN) != 0) {
      return io_error("listen on " + endpoint(o), errno);
    }
    return fd;
  }
  return fail(ErrorCode::kIo, "rank 0 cannot listen on " + endpoint(o));
}

// Connects to rank 0, retrying (refused, unreachable, not yet resolvable) until the deadline.
Result<Fd> connect_with_retry(const RendezvousOptions& o, Clock::time_point deadline) {
  trainer::detail::ExponentialBackoff backoff{std::chrono::milliseconds(2),
                                              std::chrono::milliseconds(100)};
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
    std::this_thread::sleep_for(std::min<Clock::duration>(backoff.next(), deadline - now));
  }
}

// Milliseconds until `deadline` for poll(), rounded up (so a wait never spins), at least 0.
int poll_ms(Clock::time_point deadline) {
  const auto left = deadline - Clock::now();
  if (left <= Clock::duration::zero()) return 0;
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
  return static_cast<int>(std::min<long long>(ms, 1000 * 1000));
}

Result<st::Nonce> fresh_nonce() {
  st::Nonce n{};
  if (RAND_bytes(n.data(), static_cast<int>(n.size())) != 1) {
    return fail(ErrorCode::kInternal, "rendezvous: RAND_bytes failed (no entropy source?)");
  }
  return n;
}

std::string peer_name(const sockaddr_storage& a) {
  char host[INET6_ADDRSTRLEN] = "?";
  std::uint16_t port = 0;
  if (a.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&a);
    ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    port = ntohs(in->sin_port);
    return std::string(host) + ":" + std::to_string(port);
  }
  if (a.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&a);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    port = ntohs(in6->sin6_port);
  }
  return "[" + std::string(host) + "]:" + std::to_string(port);
}

// The job's key: the configured secret, TRAINER_RENDEZVOUS_SECRET, or the fallback.
Result<st::Key> rendezvous_key(const RendezvousOptions& o) {
  std::optional<std::string> secret = o.secret;
  if (!secret) {
    auto from_env = detail::rendezvous_secret_from(process_env());
    if (!from_env) return tl::unexpected(from_env.error());
    secret = std::move(*from_env);
  }
  if (!secret || secret->empty()) return st::derive_key(st::fallback_secret(o.host, o.port));
  if (secret->size() < kMinRendezvousSecretBytes) {
    return fail(ErrorCode::kInvalidArgument,
                "tcp_rendezvous: the rendezvous secret is " + std::to_string(secret->size()) +
                    " bytes long; at least " + std::to_string(kMinRendezvousSecretBytes) +
                    " are required");
  }
  return st::derive_key(*secret);
}

// Rank 0's log: the first kMaxLogLines lines of a round, then a count.
class RoundLog {
 public:
  explicit RoundLog(const RendezvousOptions& o) : sink_(o.log) {}
  RoundLog(const RoundLog&) = delete;
  RoundLog& operator=(const RoundLog&) = delete;
  ~RoundLog() {
    if (suppressed_ > 0) {
      write(std::to_string(suppressed_) + " more rendezvous log lines were suppressed");
    }
  }
  void operator()(const std::string& line) {
    if (lines_ >= kMaxLogLines) {
      ++suppressed_;
      return;
    }
    ++lines_;
    write(line);
  }

 private:
  void write(const std::string& line) const {
    if (sink_) {
      sink_(line);
    } else {
      std::fprintf(stderr, "libtrainer: %s\n", line.c_str());
    }
  }
  std::function<void(const std::string&)> sink_;
  int lines_ = 0;
  int suppressed_ = 0;
};

// One connection as rank 0's loop sees it.
struct Conn {
  Fd fd;
  std::string peer;
  Clock::time_point handshake_deadline;
  std::deque<st::Bytes> out;  // queued output; the front is written from out_offset
  std::size_t out_offset = 0;
  bool closing = false;     // the round is done with it: flush `out`, then wait for EOF
  bool write_shut = false;  // everything went out and our side is shut
  std::string who;          // for "could not deliver the answer to ..."
};

class Server {
 public:
  Server(const RendezvousOptions& o, Fd listener, st::Key key, std::string_view blob,
         Clock::time_point deadline)
      : o_(o),
        listener_(std::move(listener)),
        deadline_(deadline),
        log_(o),
        round_(st::RoundConfig{o.size, key, o.max_blob_bytes, endpoint(o), std::string(blob)}) {}

  Result<std::vector<std::string>> run() {
    for (;;) {
      const auto now = Clock::now();
      if (round_.state() == st::Round::State::kRunning) {
        if (now >= deadline_) {
          apply(round_.timeout(o_.timeout));
        } else {
          expire_handshakes(now);
        }
      }
      if (round_.state() != st::Round::State::kRunning) {
        if (!ended_) {
          ended_ = true;
          flush_deadline_ = std::max(deadline_, now + kLinger);
        }
        if (all_delivered() && !linger_deadline_) linger_deadline_ = now + kLinger;
        if (conns_.empty()) break;
        if (now >= flush_deadline_ || (linger_deadline_ && now >= *linger_deadline_)) {
          for (auto& [id, c] : conns_) {
            if (!c.write_shut) undelivered(c, "timed out");
          }
          conns_.clear();
          break;
        }
      }
      if (auto ok = wait_and_serve(); !ok) return tl::unexpected(ok.error());
    }
    if (round_.state() == st::Round::State::kFailed) return tl::unexpected(round_.error());
    if (!undelivered_.empty()) {
      return fail(ErrorCode::kIo, "rendezvous at " + endpoint(o_) +
                                      ": could not deliver the answer to " + undelivered_);
    }
    return round_.take_blobs();
  }

 private:
  void apply(st::Actions actions) {
    for (st::Action& a : actions) {
      switch (a.kind) {
        case st::Action::Kind::kLog: log_(a.text); break;
        case st::Action::Kind::kSend: {
          const auto it = conns_.find(a.conn);
          if (it == conns_.end()) break;
          for (st::Bytes& b : a.data) {
            if (!b->empty()) it->second.out.push_back(std::move(b));
          }
          break;
        }
        case st::Action::Kind::kClose: {
          const auto it = conns_.find(a.conn);
          if (it == conns_.end()) break;
          if (!a.flush) {
            conns_.erase(it);
          } else {
            it->second.closing = true;
            it->second.who = std::move(a.text);
            (void)flush_if_idle(a.conn, it->second);
          }
          break;
        }
      }
    }
  }

  // A closing connection with nothing left to write. After a result the rank sends nothing
  // more: what is readable is drained and the connection closed (no reset can then eat the
  // answer). After an error the rank may still be sending its blob: our side is shut and its
  // input drained until its EOF (at most kLinger), so the error is read before the close.
  // Returns false when the connection was closed.
  bool flush_if_idle(st::ConnId id, Conn& c) {
    if (!c.closing || !c.out.empty() || c.write_shut) return true;
    if (round_.state() == st::Round::State::kComplete) {
      char buf[4096];
      while (::recv(c.fd.get(), buf, sizeof buf, MSG_DONTWAIT) > 0) {
      }
      conns_.erase(id);
      return false;
    }
    ::shutdown(c.fd.get(), SHUT_WR);
    c.write_shut = true;
    return true;
  }

  bool all_delivered() const {
    return std::all_of(conns_.begin(), conns_.end(),
                       [](const auto& kv) { return kv.second.write_shut; });
  }

  void undelivered(const Conn& c, const std::string& why) {
    if (round_.state() != st::Round::State::kComplete) return;
    undelivered_ += (undelivered_.empty() ? "" : "; ") + c.who + ": " + why;
  }

  void expire_handshakes(Clock::time_point now) {
    std::vector<st::ConnId> late;
    for (const auto& [id, c] : conns_) {
      if (!c.closing && now >= c.handshake_deadline && !round_.authenticated(id)) {
        late.push_back(id);
      }
    }
    for (const st::ConnId id : late) {
      apply(round_.drop(
          id, "did not authenticate within " +
                  std::to_string(
                      std::chrono::duration_cast<std::chrono::milliseconds>(kHandshakeTimeout)
                          .count()) +
                  " ms"));
    }
  }

  Clock::time_point next_wakeup() const {
    Clock::time_point t = ended_ ? flush_deadline_ : deadline_;
    if (linger_deadline_) t = std::min(t, *linger_deadline_);
    if (!ended_) {
      for (const auto& [id, c] : conns_) {
        if (!c.closing && !round_.authenticated(id)) t = std::min(t, c.handshake_deadline);
      }
    }
    return t;
  }

  Result<void> wait_and_serve() {
    std::vector<pollfd> fds;
    std::vector<st::ConnId> ids;
    if (accept_paused_at_ && conns_.size() < *accept_paused_at_) accept_paused_at_.reset();
    if (!ended_ && !accept_paused_at_) {
      fds.push_back({listener_.get(), POLLIN, 0});
      ids.push_back(0);
    }
    for (const auto& [id, c] : conns_) {
      short events = POLLIN;
      if (!c.out.empty()) events = static_cast<short>(events | POLLOUT);
      fds.push_back({c.fd.get(), events, 0});
      ids.push_back(id);
    }
    const int rc = ::poll(fds.data(), fds.size(), poll_ms(next_wakeup()));
    if (rc < 0) {
      if (errno == EINTR) return {};
      return io_error("rendezvous: poll", errno);
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      if (ids[i] == 0) {
        accept_all();
        continue;
      }
      serve(ids[i], fds[i].revents);
    }
    return {};
  }

  void accept_all() {
    for (int n = 0; n < 64 && !ended_; ++n) {
      sockaddr_storage addr{};
      socklen_t len = sizeof addr;
      Fd fd(::accept4(listener_.get(), reinterpret_cast<sockaddr*>(&addr), &len,
                      SOCK_CLOEXEC | SOCK_NONBLOCK));
      if (fd.get() < 0) {
        if (errno == EMFILE || errno == ENFILE) out_of_descriptors();
        return;  // EAGAIN, ECONNABORTED, ...
      }
      evict_if_full(kMaxUnauthenticated);
      auto nonce = fresh_nonce();
      if (!nonce) {
        log_(nonce.error().message);
        continue;
      }
      const int one = 1;
      ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      const st::ConnId id = next_id_++;
      Conn c;
      c.fd = std::move(fd);
      c.peer = peer_name(addr);
      c.handshake_deadline = std::min(deadline_, Clock::now() + kHandshakeTimeout);
      const std::string peer = c.peer;
      conns_.emplace(id, std::move(c));
      apply(round_.open(id, *nonce, peer));
    }
  }

  // Keeps the connections waiting to authenticate below kMaxUnauthenticated: a flood of
  // silent connections pushes out its own oldest members, never an authenticated rank.
  // Drops the oldest connection waiting to authenticate when `limit` or more wait. True when
  // one was dropped.
  bool evict_if_full(std::size_t limit) {
    std::size_t waiting = 0;
    st::ConnId oldest = 0;
    for (const auto& [id, c] : conns_) {
      if (c.closing || round_.authenticated(id)) continue;
      ++waiting;
      if (oldest == 0) oldest = id;  // ids grow: the first one is the oldest
    }
    if (waiting == 0 || waiting < limit) return false;
    apply(round_.drop(oldest, limit == kMaxUnauthenticated
                                  ? "evicted: " + std::to_string(kMaxUnauthenticated) +
                                        " connections were waiting to authenticate"
                                  : std::string("evicted: rank 0 ran out of file descriptors")));
    return true;
  }

  // accept() found no free descriptor: a connection still waiting to authenticate makes room;
  // without one, the listener is left alone until a connection goes (no busy loop).
  void out_of_descriptors() {
    if (evict_if_full(1)) return;
    if (!accept_paused_at_) {
      log_("rendezvous at " + endpoint(o_) +
           ": rank 0 ran out of file descriptors (raise RLIMIT_NOFILE above the world size); "
           "new connections wait until one closes");
    }
    accept_paused_at_ = conns_.size();
  }

  void serve(st::ConnId id, short revents) {
    auto it = conns_.find(id);
    if (it == conns_.end()) return;
    if ((revents & POLLOUT) != 0 ||
        ((revents & (POLLERR | POLLHUP)) != 0 && !it->second.out.empty())) {
      if (!write_some(id)) return;
      it = conns_.find(id);
      if (it == conns_.end()) return;
    }
    if ((revents & (POLLIN | POLLERR | POLLHUP)) != 0) read_some(id);
  }

  // False when the connection is gone.
  bool write_some(st::ConnId id) {
    Conn& c = conns_.at(id);
    while (!c.out.empty()) {
      const std::string& front = *c.out.front();
      const ssize_t w = ::send(c.fd.get(), front.data() + c.out_offset, front.size() - c.out_offset,
                               MSG_NOSIGNAL);
      if (w < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
        gone(id, errno_text(errno));
        return false;
      }
      c.out_offset += static_cast<std::size_t>(w);
      if (c.out_offset == front.size()) {
        c.out.pop_front();
        c.out_offset = 0;
      }
    }
    return flush_if_idle(id, c);
  }

  void read_some(st::ConnId id) {
    char buf[kReadChunk];
    for (int turn = 0; turn < kReadsPerTurn; ++turn) {
      const auto it = conns_.find(id);
      if (it == conns_.end()) return;
      const ssize_t r = ::recv(it->second.fd.get(), buf, sizeof buf, 0);
      if (r < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        gone(id, errno_text(errno));
        return;
      }
      if (r == 0) {
        gone(id, "closed the connection");
        return;
      }
      // A closing connection's input is read and discarded until its EOF.
      if (!it->second.closing) {
        apply(round_.receive(id, std::string_view(buf, static_cast<std::size_t>(r))));
      }
    }
  }

  // The peer went away (EOF, reset, write error).
  void gone(st::ConnId id, const std::string& why) {
    const auto it = conns_.find(id);
    if (it == conns_.end()) return;
    if (it->second.closing) {
      if (!it->second.write_shut) undelivered(it->second, why);
      conns_.erase(it);
      return;
    }
    conns_.erase(it);
    apply(round_.closed(id));
  }

  const RendezvousOptions& o_;
  Fd listener_;
  Clock::time_point deadline_;
  RoundLog log_;
  st::Round round_;
  std::map<st::ConnId, Conn> conns_;
  st::ConnId next_id_ = 1;
  bool ended_ = false;
  Clock::time_point flush_deadline_;
  std::optional<Clock::time_point> linger_deadline_;
  std::optional<std::size_t> accept_paused_at_;  // connections when accept() ran out of fds
  std::string undelivered_;
};

Result<std::vector<std::string>> serve(const RendezvousOptions& o, const st::Key& key,
                                       std::string_view blob, Clock::time_point deadline) {
  auto listener = listen_on(o);
  if (!listener) return tl::unexpected(listener.error());
  const int flags = ::fcntl(listener->get(), F_GETFL);
  if (flags < 0 || ::fcntl(listener->get(), F_SETFL, flags | O_NONBLOCK) != 0) {
    return io_error("rendezvous: fcntl", errno);
  }
  Server server(o, std::move(*listener), key, blob, deadline);
  return server.run();
}

// One connection's exchange from a rank > 0: HELLO, then whatever the session answers, until
// it has an outcome. kIo "closed" when rank 0 went away first (the caller may connect again).
Result<std::vector<std::string>> exchange(Fd& fd, st::ClientSession& session,
                                          Clock::time_point reply_deadline,
                                          const std::string& peer) {
  std::string out = session.hello();
  std::size_t sent = 0;
  char buf[kReadChunk];
  while (!session.outcome()) {
    if (Clock::now() >= reply_deadline) return fail(ErrorCode::kTimeout, "timed out");
    pollfd p{fd.get(), POLLIN, 0};
    if (sent < out.size()) p.events = static_cast<short>(p.events | POLLOUT);
    const int rc = ::poll(&p, 1, poll_ms(reply_deadline));
    if (rc < 0) {
      if (errno == EINTR) continue;
      return io_error("poll " + peer, errno);
    }
    if (rc == 0) continue;
    if ((p.revents & POLLOUT) != 0) {
      const ssize_t w = ::send(fd.get(), out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
      if (w < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
        if (errno == EPIPE || errno == ECONNRESET) {
          // Read what rank 0 said before it closed (an error, usually) before giving up.
          p.revents = static_cast<short>(p.revents | POLLIN);
        } else {
          return io_error("send to " + peer, errno);
        }
      } else if (w > 0) {
        sent += static_cast<std::size_t>(w);
        if (sent == out.size()) {
          out.clear();
          sent = 0;
        }
      }
    }
    if ((p.revents & (POLLIN | POLLERR | POLLHUP)) != 0) {
      const ssize_t r = ::recv(fd.get(), buf, sizeof buf, 0);
      if (r < 0) {
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
        return fail(ErrorCode::kIo, peer + " closed the connection (" + errno_text(errno) + ")");
      }
      if (r == 0) return fail(ErrorCode::kIo, peer + " closed the connection");
      out += session.receive(std::string_view(buf, static_cast<std::size_t>(r)));
    }
  }
  return session.take_outcome();
}

Result<std::vector<std::string>> join(const RendezvousOptions& o, const st::Key& key,
                                      std::string_view blob, Clock::time_point deadline) {
  const std::string peer = "rank 0 at " + endpoint(o);
  // rank 0 answers when every rank has joined or it gives up (its own timeout); allow a second
  // beyond ours for its error message to arrive.
  const auto reply_deadline = deadline + std::chrono::seconds(1);
  const st::ClientConfig config{o.rank, o.size, key, o.max_blob_bytes, endpoint(o)};
  for (;;) {
    auto connected = connect_with_retry(o, deadline);
    if (!connected) return tl::unexpected(connected.error());
    auto nonce = fresh_nonce();
    if (!nonce) return tl::unexpected(nonce.error());
    st::ClientSession session(config, *nonce, blob);
    auto got = exchange(*connected, session, reply_deadline, peer);
    if (got || session.outcome()) return got;
    if (got.error().code == ErrorCode::kTimeout) {
      return fail(ErrorCode::kTimeout, "rank " + std::to_string(o.rank) + ": rendezvous at " +
                                           endpoint(o) + " did not complete within " +
                                           std::to_string(o.timeout.count()) + " ms");
    }
    // Closed or reset before an answer: the connection sat in the backlog of a listener that
    // was going away (rank 0's previous round on the same port), rank 0 dropped it (a flood of
    // connections), or it lost it. Connect again.
    if (Clock::now() >= deadline) return tl::unexpected(got.error());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
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
  auto key = rendezvous_key(options);
  if (!key) return tl::unexpected(key.error());
  const auto deadline = Clock::now() + options.timeout;
  if (options.rank == 0) return serve(options, *key, blob, deadline);
  return join(options, *key, blob, deadline);
}

}  // namespace trainer::collectives
