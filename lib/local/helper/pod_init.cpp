// SPDX-License-Identifier: Apache-2.0
//
// `trainer-pod init SPEC`: one pod's init. With namespaces the executor started it in new
// mount, UTS and PID namespaces (lib/local/pod_spawn.cpp), so it is PID 1 of the pod: it makes
// its mounts private, binds /etc/hosts and the volumes, sets the hostname, mounts a fresh /proc,
// serves the exec socket (the rsh agent's way in), runs the container process and, when that
// ends, kills whatever is left in the pod; as PID 1 it reaps every orphan of the pod. Without
// namespaces the same init runs as a child subreaper over the container's group.
// Single-threaded on purpose: it forks freely and waits with signalfd.
#include "helper/helper.hpp"

#include "fd_passing.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace trainer::local::helper {
namespace json = boost::json;
namespace {

struct Spec {
  bool namespaces = false;
  long executor_pid = 0;  // the parent it must have (0: not checked)
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
  // The identity the container's processes run as (securityContext, resolved by the executor).
  struct User {
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups;
  };
  std::optional<User> user;
};

// Readiness and setup errors go to the executor on fd 3, then fd 3 is closed.
constexpr int kReadyFd = 3;
// How long a connected rsh agent may take to send its request.
constexpr int kSessionRequestMs = 5000;

// One line per report: a newline inside (a program name can hold one) would split it.
void report(std::string line) {
  std::replace(line.begin(), line.end(), '\n', ' ');
  const std::string text = line + "\n";
  (void)!write(kReadyFd, text.data(), text.size());
}

[[noreturn]] void die(const std::string& what) {
  const int err = errno;  // before anything below can change it
  const std::string msg = "error: " + what + ": " + std::strerror(err);
  report(msg);
  std::fprintf(stderr, "trainer-pod: %s\n", msg.c_str());
  _exit(kSetupFailedExit);
}

// The whole of a small file (a pod spec, /proc/self/stat) with plain reads: an iostream costs
// every pod's init more than the read. Empty when it cannot be opened.
std::string read_small_file(const char* path) {
  std::string out;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[8192];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  close(fd);
  return out;
}

Spec read_spec(const char* path) {
  boost::system::error_code ec;
  auto v = json::parse(read_small_file(path), ec);
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
  if (const auto* p = o.if_contains("executorPid"); p != nullptr && p->is_int64()) {
    spec.executor_pid = static_cast<long>(p->get_int64());
  }
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
  if (const auto* u = o.if_contains("user"); u != nullptr && u->is_object()) {
    const auto& uo = u->get_object();
    const auto id = [&](const char* k) -> std::int64_t {
      const auto* x = uo.if_contains(k);
      return x != nullptr && x->is_int64() ? x->get_int64() : -1;
    };
    if (id("uid") < 0 || id("gid") < 0) {
      errno = EINVAL;
      die(std::string("pod spec ") + path + ": user without uid and gid");
    }
    Spec::User user{static_cast<uid_t>(id("uid")), static_cast<gid_t>(id("gid")), {}};
    if (const auto* g = uo.if_contains("groups"); g != nullptr && g->is_array()) {
      for (const auto& e : g->get_array()) {
        if (e.is_int64() && e.get_int64() >= 0)
          user.groups.push_back(static_cast<gid_t>(e.get_int64()));
      }
    }
    spec.user = std::move(user);
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

// The folder of the run's exec sockets below `socket_dir` (root's, 0700): traversable (0711)
// and its sockets connectable by anyone who reaches it, which on the host is root only and in a
// pod whoever runs there, through the bind mount at kPodSocketDir.
std::string exec_socket_dir(const Spec& spec) {
  const std::string dir = spec.socket_dir + "/" + kExecSocketSubdir;
  if (mkdir(dir.c_str(), 0711) != 0 && errno != EEXIST) die("creating " + dir);
  if (chmod(dir.c_str(), 0711) != 0) die("making " + dir + " reachable");
  return dir;
}

void setup_namespaces(const Spec& spec, const std::string& socket_dir) {
  // Private mounts first, so nothing below propagates back to the host.
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) die("making / private");
  if (sethostname(spec.hostname.data(), spec.hostname.size()) != 0) die("setting the hostname");
  if (!spec.hosts_file.empty()) bind_mount(spec.hosts_file, "/etc/hosts", true, true);
  for (const auto& m : spec.mounts) bind_mount(m.source, m.target, m.file, m.read_only);
  // The rsh agent of a pod that runs as another user than root reaches the other pods here. Only
  // that needs it: where it cannot be made (no writable /run), the pod runs without it.
  if (!spec.socket_dir.empty()) {
    if ((mkdir(kPodSocketDir, 0755) != 0 && errno != EEXIST) ||
        mount(socket_dir.c_str(), kPodSocketDir, nullptr, MS_BIND, nullptr) != 0) {
      std::fprintf(stderr,
                   "trainer-pod: warning: the exec sockets are not at %s (%s): only root can "
                   "reach the other pods from this one\n",
                   kPodSocketDir, std::strerror(errno));
    }
  }
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
    die("mounting /proc");
  }
}

// The signals the init reads from its signalfd: a child's exit and a stop request.
sigset_t init_signals() {
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) sigaddset(&mask, sig);
  return mask;
}

void reset_signals() {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGPIPE, SIGQUIT}) std::signal(sig, SIG_DFL);
}

// The parent as /proc shows it (the pid in the PID namespace of the /proc mount: the host's,
// before setup_namespaces mounts the pod's), or -1 when it cannot be read.
long proc_parent() {
  const std::string stat = read_small_file("/proc/self/stat");
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, the last ')' ends it.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  char state = 0;
  long ppid = -1;
  if (std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &ppid) != 2) return -1;
  return ppid;
}

// The executor armed PR_SET_PDEATHSIG before the exec; an executor that died before that could
// not send it, and the pod would outlive it: then its parent is no longer the executor. PID 1 of
// a new namespace sees no parent (getppid() is 0), so it asks the host's /proc.
void check_parent(const Spec& spec) {
  if (spec.executor_pid <= 0) return;
  const long parent = spec.namespaces ? proc_parent() : static_cast<long>(getppid());
  if (parent != spec.executor_pid) {
    errno = ESRCH;
    die("the executor (pid " + std::to_string(spec.executor_pid) + ") is gone");
  }
}

// In a child that failed to start the container's program (`err`: the errno, taken before
// anything else can change it): says why on stderr (the pod's log) and on `error_fd` (the init
// reports it to the executor), then exits like a shell would. Allocates nothing and takes no
// lock: the container's child shares the init's memory until its exec (start_container).
[[noreturn]] void exec_failed(int error_fd, const char* what, long id, int code, int err) {
  char text[512];
  const int n = id >= 0
                    ? std::snprintf(text, sizeof text, "%s %ld: %s", what, id, std::strerror(err))
                    : std::snprintf(text, sizeof text, "%s: %s", what, std::strerror(err));
  const auto len = static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof text) - 1));
  const char prefix[] = "trainer-pod: ";
  const iovec line[] = {
      {const_cast<char*>(prefix), sizeof prefix - 1}, {text, len}, {const_cast<char*>("\n"), 1}};
  (void)!writev(STDERR_FILENO, line, 3);
  if (error_fd >= 0) (void)!write(error_fd, text, len);
  _exit(code);
}

// The container's command line and env as exec takes them; `strings` owns the text.
struct ExecArgs {
  std::vector<std::string> strings;
  std::vector<char*> argv, env;
};

ExecArgs exec_args(std::vector<std::string> argv, std::vector<std::string>& env) {
  ExecArgs out;
  out.strings = std::move(argv);
  for (auto& s : out.strings) out.argv.push_back(s.data());
  out.argv.push_back(nullptr);
  for (auto& s : env) out.env.push_back(s.data());
  out.env.push_back(nullptr);
  return out;
}

// In a child of the init: the pod's user, its working directory, its env, then exec. `error_fd`
// (close-on-exec; -1 for none) receives the reason when the program cannot be started, and
// reaches end-of-file without data when the exec succeeded. System calls and formatting only:
// the container's own child runs this in the init's memory (start_container).
[[noreturn]] void exec_in_pod(const Spec& spec, const ExecArgs& args, int error_fd) {
  reset_signals();
  if (spec.user) {
    // As the kubelet's runtime does: supplementary groups, group, then user (after the mounts,
    // which needed root). Dropping root drops every capability.
    const auto& u = *spec.user;
    if (setgroups(u.groups.size(), u.groups.data()) != 0) {
      exec_failed(error_fd, "setting supplementary groups", -1, kSetupFailedExit, errno);
    }
    if (setgid(u.gid) != 0) {
      exec_failed(error_fd, "setting group", static_cast<long>(u.gid), kSetupFailedExit, errno);
    }
    if (setuid(u.uid) != 0) {
      exec_failed(error_fd, "setting user", static_cast<long>(u.uid), kSetupFailedExit, errno);
    }
  }
  if (!spec.working_dir.empty() && chdir(spec.working_dir.c_str()) != 0) {
    const int err = errno;
    char what[PATH_MAX + 16];
    std::snprintf(what, sizeof what, "workingDir %s", spec.working_dir.c_str());
    exec_failed(error_fd, what, -1, kSetupFailedExit, err);
  }
  // execvp searches the PATH of `environ`, so the pod's PATH decides which host program runs.
  environ = const_cast<char**>(args.env.data());
  execvp(args.argv[0], args.argv.data());
  const int err = errno;
  char what[PATH_MAX + 16];
  std::snprintf(what, sizeof what, "cannot run %s", args.argv[0]);
  exec_failed(error_fd, what, -1, err == ENOENT ? 127 : 126, err);
}

// The container's process, started as posix_spawn starts one: vfork, so the init's page tables
// are not copied for a child that execs at once (the init runs again once the child exec'd or
// exited). The child changes nothing the init keeps but `environ`, which the init never reads.
pid_t start_container(const Spec& spec, const ExecArgs& args, int error_fd) {
  const pid_t pid = vfork();
  if (pid == 0) {
    if (!spec.namespaces) setpgid(0, 0);
    close(kReadyFd);  // the child's descriptor table is its own
    exec_in_pod(spec, args, error_fd);
  }
  return pid;
}

int listen_socket(const Spec& spec, const std::string& dir) {
  // Relative names keep sun_path short whatever the run folder's length.
  if (chdir(dir.c_str()) != 0) die("entering " + dir);
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
  // Connectable by every user of the run's pods (0666): the folders above decide who gets here.
  const mode_t old = umask(0111);
  const int rc = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  umask(old);
  if (rc != 0 || listen(fd, 64) != 0) die("listening on " + dir + "/" + spec.socket_name);
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
  // The agent sends its request with the connection; one that does not cannot hold this
  // single-threaded init (and so the pod's exit) for longer than this.
  pollfd request{conn, POLLIN, 0};
  if (poll(&request, 1, kSessionRequestMs) != 1) {
    close(conn);
    return;
  }
  std::vector<char> payload(kMaxCommand);
  auto got = fd_passing::receive_with_fds(conn, payload.data(), payload.size(), MSG_DONTWAIT);
  if (got.bytes <= 0 || got.truncated || got.fds.size() != 3) {
    // Not a request: whatever descriptors came with it are not kept open here.
    fd_passing::close_all(got.fds);
    close(conn);
    return;
  }
  const ssize_t n = got.bytes;
  int fds[3] = {got.fds[0], got.fds[1], got.fds[2]};
  // Who may open a session: root, or the user the session runs as (as ssh to oneself), so no
  // pod of the run gets another pod's user through its socket. (Refused after the request was
  // read: a socket closed with unread data would reset the connection before the answer.)
  ucred peer{};
  socklen_t len = sizeof peer;
  const uid_t target = spec.user ? spec.user->uid : geteuid();
  if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 ||
      (peer.uid != 0 && peer.uid != target)) {
    for (int fd : fds) close(fd);
    const std::int32_t refused = kSessionRefused;
    (void)!send(conn, &refused, sizeof refused, MSG_NOSIGNAL | MSG_DONTWAIT);
    close(conn);
    return;
  }
  std::string command(payload.data(), static_cast<std::size_t>(n));
  const ExecArgs args = exec_args({"/bin/sh", "-c", command}, spec.env);
  const pid_t pid = fork();
  if (pid == 0) {
    setsid();
    for (int i = 0; i < 3; ++i) dup2(fds[i], i);
    exec_in_pod(spec, args, -1);
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
  // Blocked since the executor's clone (pod_spawn.cpp): a stop request sent before this point
  // waits on the signalfd instead of being lost (PID 1 drops a signal it has no handler for).
  const sigset_t mask = init_signals();
  const int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
  if (sfd < 0) die("signalfd");
  check_parent(spec);
  if (!spec.namespaces) prctl(PR_SET_CHILD_SUBREAPER, 1);
  const std::string socket_dir = exec_socket_dir(spec);
  if (spec.namespaces) setup_namespaces(spec, socket_dir);
  const int listener = listen_socket(spec, socket_dir);

  pid_t main_pid = 0;
  std::string start_error;
  if (!spec.hold_only) {
    int exec_pipe[2];
    if (pipe2(exec_pipe, O_CLOEXEC) != 0) die("pipe");
    const ExecArgs args = exec_args(spec.argv, spec.env);
    main_pid = start_container(spec, args, exec_pipe[1]);
    if (main_pid < 0) die("fork");
    if (!spec.namespaces) setpgid(main_pid, main_pid);
    close(exec_pipe[1]);
    // The container counts as started (Ready) once its program was exec'd: end-of-file here.
    // Bounded by the child, which either execs or exits at once.
    char buf[512];
    for (ssize_t n; (n = read(exec_pipe[0], buf, sizeof buf)) != 0;) {
      if (n > 0) start_error.append(buf, static_cast<std::size_t>(n));
      if (n < 0 && errno != EINTR) break;
    }
    close(exec_pipe[0]);
  }
  // Without namespaces the container's process group outlives this init if it is SIGKILLed:
  // the executor is told the group, to end it then.
  if (!spec.namespaces && main_pid > 0) report("pgid " + std::to_string(main_pid));
  // A program that could not start is reported as the pod's setup error; its exit status (127,
  // 126 or 125) arrives below as SIGCHLD, which is blocked, so it cannot be lost.
  report(start_error.empty() ? "ok" : "error: " + start_error);
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
  // Default dispositions (an ignored SIGCHLD would survive the exec), and the init's signals
  // stay blocked from the clone on; the container's process unblocks them (exec_in_pod).
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGPIPE, SIGQUIT}) std::signal(sig, SIG_DFL);
  const sigset_t mask = init_signals();
  sigprocmask(SIG_SETMASK, &mask, nullptr);
  Spec spec = read_spec(argv[0]);
  run_init(spec);
}

}  // namespace trainer::local::helper
