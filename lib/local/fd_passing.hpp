// SPDX-License-Identifier: Apache-2.0
//
// One message with descriptors attached (SCM_RIGHTS) over a Unix socket: the exec sessions'
// requests (the rsh agent to a pod's init) and the pod launcher's requests and answers. Header
// only: the executor and the `trainer-pod` helper both use it.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <vector>

#include <sys/socket.h>
#include <unistd.h>

namespace trainer::local::fd_passing {

/// The most descriptors one message carries.
inline constexpr std::size_t kMaxFds = 8;

/// Sends `len` bytes of `data` as one message with `fds[0..count)` attached, never raising
/// SIGPIPE; retries when interrupted. Returns sendmsg's result (-1 with EINVAL, nothing sent,
/// for more than kMaxFds descriptors).
inline ssize_t send_with_fds(int socket, const void* data, std::size_t len, const int* fds,
                             std::size_t count) noexcept {
  if (count > kMaxFds) {
    errno = EINVAL;
    return -1;
  }
  iovec iov{const_cast<void*>(data), len};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(kMaxFds * sizeof(int))] = {};
  if (count > 0) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(count * sizeof(int));
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(count * sizeof(int));
    std::memcpy(CMSG_DATA(c), fds, count * sizeof(int));
  }
  ssize_t n = -1;
  do {
    n = sendmsg(socket, &msg, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n;
}

/// What `receive_with_fds` got.
struct Received {
  ssize_t bytes = -1;      ///< recvmsg's result (0: the peer closed; -1: errno says why)
  bool truncated = false;  ///< the message or its descriptors did not fit (MSG_TRUNC/CTRUNC)
  std::vector<int> fds;    ///< close-on-exec, owned by the caller
};

/// Receives one message into `buffer` (`flags` as recvmsg's, e.g. MSG_DONTWAIT), with the
/// descriptors attached to it; retries when interrupted.
inline Received receive_with_fds(int socket, void* buffer, std::size_t capacity, int flags = 0) {
  iovec iov{buffer, capacity};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(kMaxFds * sizeof(int))] = {};
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  Received out;
  do {
    out.bytes = recvmsg(socket, &msg, flags | MSG_CMSG_CLOEXEC);
  } while (out.bytes < 0 && errno == EINTR);
  if (out.bytes < 0) return out;
  out.truncated = (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      out.fds.push_back(fd);
    }
  }
  return out;
}

/// Closes every descriptor of `fds`.
inline void close_all(const std::vector<int>& fds) noexcept {
  for (const int fd : fds) close(fd);
}

}  // namespace trainer::local::fd_passing
