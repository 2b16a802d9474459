// SPDX-License-Identifier: Apache-2.0
//
// `trainer-pod rsh`: what Open MPI runs instead of ssh (OMPI_MCA_plm_rsh_agent). It accepts
// ssh's command line, finds the target pod of the run by hostname, FQDN or loopback address, and
// hands its stdin/stdout/stderr and the remote command to that pod's init over the pod's exec
// socket; the init runs `/bin/sh -c COMMAND` inside the pod (its namespaces and env). The exit
// status comes back like ssh's; 255 when the pod cannot be reached.
#include "helper/helper.hpp"

#include "fd_passing.hpp"

#include <boost/json.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace trainer::local::helper {
namespace {

constexpr int kSshError = 255;

// ssh options that take a value (OpenSSH `ssh -h`); the others are flags.
bool takes_value(char opt) {
  return std::strchr("BbcDEeFIiJLlmOoPpQRSWw", opt) != nullptr;
}

bool is_address(std::string_view host) {
  return !host.empty() && host.find_first_not_of("0123456789.") == std::string_view::npos;
}

// The pod hostname of an address, from the hosts file the pods see as /etc/hosts (`address
// fqdn.svc... fqdn hostname`): what a pod running as another user than root can read.
std::string hostname_in_hosts(const std::string& path, std::string_view address) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string first, last;
    if (!(fields >> first) || first != address) continue;
    for (std::string f; fields >> f;) last = f;
    if (!last.empty()) return last;
  }
  return {};
}

// The pod hostname of an address, from the run's state.json.
std::string hostname_of_address(const std::string& run_dir, std::string_view address) {
  std::ifstream in(run_dir + "/state.json");
  std::stringstream buf;
  buf << in.rdbuf();
  boost::system::error_code ec;
  const auto state = boost::json::parse(buf.str(), ec);
  if (ec || !state.is_object()) return {};
  const auto* pods = state.get_object().if_contains("pods");
  if (pods == nullptr || !pods->is_array()) return {};
  for (const auto& p : pods->get_array()) {
    const auto* o = p.if_object();
    if (o == nullptr) continue;
    const auto* a = o->if_contains("address");
    const auto* h = o->if_contains("hostname");
    if (a != nullptr && h != nullptr && a->is_string() && h->is_string() &&
        a->get_string() == address) {
      return std::string(h->get_string());
    }
  }
  return {};
}

}  // namespace

int rsh_main(int argc, char** argv) {
  std::string run_dir;
  int i = 0;
  for (; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.substr(0, 10) == "--run-dir=") {
      run_dir = std::string(a.substr(10));
    } else if (a.size() >= 2 && a[0] == '-') {
      // Bundled flags (`-xT`) and `-oOpt=Val` / `-o Opt=Val` are all accepted and ignored:
      // there is no connection to configure.
      for (std::size_t k = 1; k < a.size(); ++k) {
        if (takes_value(a[k])) {
          if (k + 1 == a.size()) ++i;
          break;
        }
      }
    } else {
      break;
    }
  }
  if (run_dir.empty() || i >= argc) {
    std::fputs("usage: trainer-pod rsh --run-dir=DIR [ssh options] [user@]host [command...]\n",
               stderr);
    return kSshError;
  }
  std::string host = argv[i++];
  if (const auto at = host.find('@'); at != std::string::npos) host.erase(0, at + 1);
  std::string command;
  for (; i < argc; ++i) {
    if (!command.empty()) command += ' ';
    command += argv[i];
  }
  if (command.empty()) {
    std::fputs("trainer-pod rsh: an interactive shell is not supported; give a command\n", stderr);
    return kSshError;
  }
  if (command.size() > kMaxCommand) {
    std::fputs("trainer-pod rsh: command too long\n", stderr);
    return kSshError;
  }
  // Inside a pod the exec sockets and the hosts file are at fixed places any pod user can
  // reach; on the host (root) they are in the run folder.
  const bool in_pod = access(kPodSocketDir, X_OK) == 0 &&
                      access((run_dir + "/sockets/" + kExecSocketSubdir).c_str(), X_OK) != 0;
  std::string hostname = host.substr(0, host.find('.'));
  if (is_address(host)) {
    hostname = hostname_of_address(run_dir, host);
    if (hostname.empty()) hostname = hostname_in_hosts(run_dir + "/hosts", host);
    if (hostname.empty() && in_pod) hostname = hostname_in_hosts("/etc/hosts", host);
  }
  if (hostname.empty() || hostname.find('/') != std::string::npos) {
    std::fprintf(stderr, "trainer-pod rsh: %s is not a pod of the run in %s\n", host.c_str(),
                 run_dir.c_str());
    return kSshError;
  }
  // Relative to the sockets folder: sun_path is short, run folders need not be.
  const std::string socket_dir =
      in_pod ? std::string(kPodSocketDir) : run_dir + "/sockets/" + kExecSocketSubdir;
  if (chdir(socket_dir.c_str()) != 0) {
    std::fprintf(stderr, "trainer-pod rsh: %s: %s\n", socket_dir.c_str(), std::strerror(errno));
    return kSshError;
  }
  const int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (fd < 0 || hostname.size() >= sizeof addr.sun_path) return kSshError;
  std::memcpy(addr.sun_path, hostname.c_str(), hostname.size() + 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::fprintf(stderr, "trainer-pod rsh: pod %s is not running: %s\n", hostname.c_str(),
                 std::strerror(errno));
    return kSshError;
  }
  const int fds[3] = {0, 1, 2};
  // A pod that refuses the session may answer and hang up before the request is sent: its
  // answer is read either way.
  const int send_error =
      fd_passing::send_with_fds(fd, command.data(), command.size(), fds, 3) < 0 ? errno : 0;
  std::int32_t status = kSshError;
  ssize_t n = 0;
  do {
    n = recv(fd, &status, sizeof status, send_error != 0 ? MSG_DONTWAIT : 0);
  } while (n < 0 && errno == EINTR);
  if (n != sizeof status) {
    if (send_error != 0) {
      std::fprintf(stderr, "trainer-pod rsh: %s: %s\n", hostname.c_str(),
                   std::strerror(send_error));
    } else {
      std::fprintf(stderr, "trainer-pod rsh: connection to %s closed\n", hostname.c_str());
    }
    return kSshError;
  }
  if (status == kSessionRefused) {
    std::fprintf(stderr,
                 "trainer-pod rsh: pod %s refused the session: it runs as another user than uid "
                 "%u (only root and the pod's own user may run commands in it)\n",
                 hostname.c_str(), static_cast<unsigned>(getuid()));
    return kSshError;
  }
  return status;
}

}  // namespace trainer::local::helper
