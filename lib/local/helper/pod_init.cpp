// SPDX-License-Identifier: Apache-2.0
//
// `trainer-pod init SPEC`: one pod. With namespaces it unshares mount, UTS and PID namespaces
// and forks the pod's init (PID 1 there), which makes its mounts private, binds /etc/hosts and
// the volumes, sets the hostname, mounts a fresh /proc, serves the exec socket (the rsh agent's
// way in), runs the container process and, when that ends, kills whatever is left in the pod.
// Without namespaces the same init runs as a child subreaper over the container's group.
// Single-threaded on purpose: it forks freely and waits with signalfd.
#include "helper/helper.hpp"

#include <boost/json.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace trainer::local::helper {
namespace json = boost::json;
namespace {

struct Spec {
  bool namespaces = false;
  std::string hostname;
  std::string hosts_file;
  struct MountSpec {
    std::string source, target;
    bool read_only = false;
    bool file = false;
  };
  std::vector<MountSpec> mounts;
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string working_dir;
  std::string socket_dir;
  std::string socket_name;
  bool hold_only = false;
  int grace_seconds = 30;
};

// Readiness and setup errors go to the executor on fd 3, then fd 3 is closed.
constexpr int kReadyFd = 3;

void report(const std::string& line) {
  const std::string text = line + "\n";
  (void)!write(kReadyFd, text.data(), text.size());
}

[[noreturn]] void die(const std::string& what) {
  const std::string msg = "error: " + what + ": " + std::strerror(errno);
  report(msg);
  std::fprintf(stderr, "trainer-pod: %s\n", msg.c_str());
  _exit(kSetupFailedExit);
}

Spec read_spec(const char* path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  boost::system::error_code ec;
  auto v = json::parse(buf.str(), ec);
  if (ec || !v.is_object()) {
    errno = EINVAL;
    die(std::string("reading pod spec ") + path);
  }
  const auto& o = v.get_object();
  const auto s = [&](const char* k) {
    const auto* x = o.if_contains(k);
    return x != nullptr && x->is_string() ? std::string(x->get_string()) : std::string();
  };
  const auto b = [&](const char* k) {
    const auto* x = o.if_contains(k);
    return x != nullptr && x->is_bool() && x->get_bool();
  };
  const auto list = [&](const char* k) {
    std::vector<std::string> out;
    if (const auto* x = o.if_contains(k); x != nullptr && x->is_array()) {
      for (const auto& e : x->get_array()) {
        if (e.is_string()) out.emplace_back(e.get_string());
      }
    }
    return out;
  };
  Spec spec;
  spec.namespaces = b("namespaces");
  spec.hostname = s("hostname");
  spec.hosts_file = s("hostsFile");
  spec.argv = list("argv");
  spec.env = list("env");
  spec.working_dir = s("workingDir");
  spec.socket_dir = s("socketDir");
  spec.socket_name = s("socketName");
  spec.hold_only = b("holdOnly");
  if (const auto* g = o.if_contains("graceSeconds"); g != nullptr && g->is_int64()) {
    spec.grace_seconds = static_cast<int>(g->get_int64());
  }
  if (const auto* m = o.if_contains("mounts"); m != nullptr && m->is_array()) {
    for (const auto& e : m->get_array()) {
      const auto& mo = e.get_object();
      Spec::MountSpec ms;
      ms.source = std::string(mo.at("source").get_string());
      ms.target = std::string(mo.at("target").get_string());
      ms.read_only = mo.at("readOnly").get_bool();
      ms.file = mo.at("file").get_bool();
      spec.mounts.push_back(std::move(ms));
    }
  }
  return spec;
}

void make_dirs(const std::string& path) {
  for (std::size_t pos = 1; pos != std::string::npos;) {
    pos = path.find('/', pos + 1);
    const std::string part = path.substr(0, pos);
    if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) die("creating " + part);
  }
}

void bind_mount(const std::string& source, const std::string& target, bool file, bool read_only) {
  if (file) {
    const auto slash = target.rfind('/');
    if (slash != std::string::npos && slash > 0) make_dirs(target.substr(0, slash));
    const int fd = open(target.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EISDIR) die("creating mount point " + target);
    if (fd >= 0) close(fd);
  } else {
    make_dirs(target);
  }
  if (mount(source.c_str(), target.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
    die("binding " + source + " at " + target);
  }
  if (read_only &&
      mount(nullptr, target.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr) != 0) {
    die("making " + target + " read-only");
  }
}

void setup_namespaces(const Spec& spec) {
  // Private mounts first, so nothing below propagates back to the host.
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) die("making / private");
  if (sethostname(spec.hostname.data(), spec.hostname.size()) != 0) die("setting the hostname");
  if (!spec.hosts_file.empty()) bind_mount(spec.hosts_file, "/etc/hosts", true, true);
  for (const auto& m : spec.mounts) bind_mount(m.source, m.target, m.file, m.read_only);
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
    die("mounting /proc");
  }
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void reset_signals() {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGPIPE, SIGQUIT}) std::signal(sig, SIG_DFL);
}

// In a forked child: the pod's env, its working directory, then exec.
[[noreturn]] void exec_in_pod(Spec& spec, std::vector<std::string> argv) {
  reset_signals();
  if (!spec.working_dir.empty() && chdir(spec.working_dir.c_str()) != 0) {
    std::fprintf(stderr, "trainer-pod: workingDir %s: %s\n", spec.working_dir.c_str(),
                 std::strerror(errno));
    _exit(kSetupFailedExit);
  }
  auto args = c_strings(argv);
  auto env = c_strings(spec.env);
  // execvp searches the PATH of `environ`, so the pod's PATH decides which host program runs.
  environ = env.data();
  execvp(args[0], args.data());
  std::fprintf(stderr, "trainer-pod: cannot run %s: %s\n", args[0], std::strerror(errno));
  _exit(errno == ENOENT ? 127 : 126);
}

int listen_socket(const Spec& spec) {
  // Relative names keep sun_path short whatever the run folder's length.
  if (chdir(spec.socket_dir.c_str()) != 0) die("entering " + spec.socket_dir);
  unlink(spec.socket_name.c_str());
  const int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) die("socket");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (spec.socket_name.size() >= sizeof addr.sun_path) {
    errno = ENAMETOOLONG;
    die("socket name " + spec.socket_name);
  }
  std::memcpy(addr.sun_path, spec.socket_name.c_str(), spec.socket_name.size() + 1);
  const mode_t old = umask(0077);
  const int rc = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  umask(old);
  if (rc != 0 || listen(fd, 64) != 0)
    die("listening on " + spec.socket_dir + "/" + spec.socket_name);
  if (chdir("/") != 0) die("chdir /");
  return fd;
}

struct Session {
  int conn = -1;
  pid_t pid = 0;
};

// One exec request: fds 0-2 as SCM_RIGHTS, the shell command as payload.
void start_session(int listener, Spec& spec, std::map<pid_t, Session>& sessions) {
  const int conn = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  if (conn < 0) return;
  std::vector<char> payload(kMaxCommand);
  int fds[3] = {-1, -1, -1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof fds)];
  iovec iov{payload.data(), payload.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  const ssize_t n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
  const cmsghdr* c = CMSG_FIRSTHDR(&msg);
  if (n <= 0 || c == nullptr || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof fds)) {
    close(conn);
    return;
  }
  std::memcpy(fds, CMSG_DATA(c), sizeof fds);
  std::string command(payload.data(), static_cast<std::size_t>(n));
  const pid_t pid = fork();
  if (pid == 0) {
    setsid();
    for (int i = 0; i < 3; ++i) dup2(fds[i], i);
    exec_in_pod(spec, {"/bin/sh", "-c", command});
  }
  for (int fd : fds) close(fd);
  if (pid < 0) {
    close(conn);
    return;
  }
  sessions[pid] = {conn, pid};
}

// Kills every process this init may have left: the whole PID namespace, or (host mode) the
// container's group, the sessions and any orphan reparented to us.
void kill_everything(const Spec& spec, pid_t main_pid, const std::map<pid_t, Session>& sessions) {
  if (spec.namespaces) {
    kill(-1, SIGKILL);
    return;
  }
  if (main_pid > 0) kill(-main_pid, SIGKILL);
  for (const auto& [pid, s] : sessions) kill(-pid, SIGKILL);
  std::ifstream children("/proc/self/task/" + std::to_string(getpid()) + "/children");
  for (long pid = 0; children >> pid;) kill(static_cast<pid_t>(pid), SIGKILL);
}

[[noreturn]] void run_init(Spec& spec) {
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) sigaddset(&mask, sig);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  const int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
  if (sfd < 0) die("signalfd");
  if (!spec.namespaces) prctl(PR_SET_CHILD_SUBREAPER, 1);
  if (spec.namespaces) setup_namespaces(spec);
  const int listener = listen_socket(spec);

  pid_t main_pid = 0;
  if (!spec.hold_only) {
    main_pid = fork();
    if (main_pid < 0) die("fork");
    if (main_pid == 0) {
      if (!spec.namespaces) setpgid(0, 0);
      close(kReadyFd);
      exec_in_pod(spec, spec.argv);
    }
    if (!spec.namespaces) setpgid(main_pid, main_pid);
  }
  report("ok");
  close(kReadyFd);

  std::map<pid_t, Session> sessions;
  int exit_code = 0;
  bool stopping = false;
  int grace_left_ms = -1;
  for (;;) {
    std::vector<pollfd> fds{{sfd, POLLIN, 0}, {listener, POLLIN, 0}};
    for (const auto& [pid, s] : sessions) fds.push_back({s.conn, POLLIN, 0});
    const auto started = std::chrono::steady_clock::now();
    const int ready = poll(fds.data(), fds.size(), grace_left_ms);
    if (grace_left_ms >= 0) {
      const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - started)
                             .count();
      grace_left_ms = std::max(0, grace_left_ms - static_cast<int>(spent));
      if (ready == 0 || grace_left_ms == 0) {
        kill_everything(spec, main_pid, sessions);
        _exit(exit_code != 0 ? exit_code : 128 + SIGKILL);
      }
    }
    if (ready < 0) continue;
    if ((fds[0].revents & POLLIN) != 0) {
      signalfd_siginfo si{};
      if (read(sfd, &si, sizeof si) != sizeof si) continue;
      if (si.ssi_signo == SIGCHLD) {
        int status = 0;
        for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;) {
          const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
          if (pid == main_pid) {
            kill_everything(spec, main_pid, sessions);
            _exit(code);
          }
          if (const auto s = sessions.find(pid); s != sessions.end()) {
            const std::int32_t wire = code;
            (void)!send(s->second.conn, &wire, sizeof wire, MSG_NOSIGNAL);
            close(s->second.conn);
            sessions.erase(s);
          }
        }
      } else if (!stopping) {
        // The kubelet's stop: SIGTERM to the container, SIGKILL after the grace period.
        stopping = true;
        if (main_pid > 0) {
          kill(spec.namespaces ? main_pid : -main_pid, SIGTERM);
          grace_left_ms = spec.grace_seconds * 1000;
        } else {
          kill_everything(spec, main_pid, sessions);
          _exit(0);  // a pod that only held its namespaces ends cleanly
        }
      }
    }
    if ((fds[1].revents & POLLIN) != 0) start_session(listener, spec, sessions);
    for (std::size_t i = 2; i < fds.size(); ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      // The agent went away (mpirun ended it): hang up the session as sshd would.
      for (const auto& [pid, s] : sessions) {
        if (s.conn == fds[i].fd) kill(-pid, SIGHUP);
      }
    }
  }
}

}  // namespace

int pod_init_main(int argc, char** argv) {
  if (argc != 1) {
    std::fputs("usage: trainer-pod init SPEC.json\n", stderr);
    return 2;
  }
  reset_signals();
  Spec spec = read_spec(argv[0]);
  if (!spec.namespaces) run_init(spec);

  if (unshare(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWPID) != 0) die("unshare");
  // The first child is PID 1 of the new PID namespace: when it dies, so does every process of
  // the pod. It dies with us (PDEATHSIG), and we die with the executor (set before our exec).
  const pid_t init = fork();
  if (init < 0) die("fork");
  if (init == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    run_init(spec);
  }
  close(kReadyFd);
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGCHLD}) sigaddset(&mask, sig);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  const int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
  for (;;) {
    int status = 0;
    signalfd_siginfo si{};
    if (read(sfd, &si, sizeof si) == sizeof si && si.ssi_signo != SIGCHLD) kill(init, SIGTERM);
    const pid_t done = waitpid(init, &status, WNOHANG);
    if (done == init) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
  }
}

}  // namespace trainer::local::helper
