// SPDX-License-Identifier: Apache-2.0
#include "local/pod_launch.hpp"

#include "local/pod_launcher.hpp"
#include "local/progress_registry.hpp"
#include "local/run_folder.hpp"
#include "local/security.hpp"
#include "local/volumes.hpp"
#include "trainer/collectives.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// The installed layout and the build tree, from lib/local/CMakeLists.txt (see find_helper).
#if !defined(TRAINER_POD_HELPER_FROM_TOOLSDIR) || !defined(TRAINER_POD_HELPER_FROM_LIBDIR) || \
    !defined(TRAINER_BUILD_TREE) || !defined(TRAINER_POD_HELPER_BUILD_PATH)
#error "lib/local/CMakeLists.txt defines the pod helper's locations"
#endif

namespace trainer::local::detail {
namespace json = boost::json;
namespace {

bool can_create_namespaces() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  return (data[0].effective & (1U << CAP_SYS_ADMIN)) != 0;
}

bool executable(const std::string& path) {
  return !path.empty() && access(path.c_str(), X_OK) == 0;
}

std::string dir_of(const std::string& path) {
  return path.substr(0, path.rfind('/'));
}

// This process's pid as /proc shows it (0 when /proc is not mounted): what a pod's helper,
// PID 1 of its own namespace, reads there as its parent's before it mounts the pod's /proc.
// Read once per process (a tuning run prepares a run per trial), again after a fork.
long proc_pid() {
  static std::mutex mu;
  static pid_t read_in = -1;
  static long seen = 0;
  const pid_t self = getpid();
  std::lock_guard<std::mutex> lock(mu);
  if (read_in == self && seen != 0) return seen;
  char buf[32];
  const ssize_t n = readlink("/proc/self", buf, sizeof buf - 1);
  if (n <= 0) return 0;
  buf[n] = '\0';
  read_in = self;
  seen = std::strtol(buf, nullptr, 10);
  return seen;
}

// The folder of the running executable ("" when /proc is not mounted).
std::string self_dir() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return {};
  return dir_of(std::string(buf, static_cast<std::size_t>(n)));
}

// The folder of the shared library this code is linked into (libtrainer.so); "" when it is
// linked into the executable itself (trainerctl, or a program linking libtrainer_cpp.a).
std::string library_dir() {
  static const char anchor = 0;
  Dl_info info{};
  link_map* map = nullptr;
  if (dladdr1(&anchor, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 ||
      map == nullptr || map->l_name == nullptr || map->l_name[0] == '\0') {
    return {};
  }
  char real[PATH_MAX];
  if (realpath(map->l_name, real) == nullptr) return {};
  return dir_of(real);
}

// The pod helper: the option, $TRAINER_POD_HELPER, then the installed layout seen from the
// running program (beside it, as the vcpkg port puts both in tools/libtrainer, or in the helper
// folder: bin/../libexec/libtrainer) and from libtrainer.so (lib/../libexec/libtrainer), so a
// moved prefix works and an embedder of the C ABI finds the helper of its libtrainer.so. The
// build tree's helper only serves programs and libraries of that build tree: an installed copy
// never runs a program from the folder it was built in.
Result<std::string> search_helper(const ExecutorOptions& options) {
  std::vector<std::string> candidates;
  const auto add = [&candidates](std::string c) {
    if (std::find(candidates.begin(), candidates.end(), c) == candidates.end()) {
      candidates.push_back(std::move(c));
    }
  };
  if (!options.pod_helper.empty()) {
    add(options.pod_helper);
  } else {
    if (const char* env = std::getenv("TRAINER_POD_HELPER"); env != nullptr && *env != '\0') {
      add(env);
    }
    const auto exe_dir = self_dir();
    const auto lib_dir = library_dir();
    const auto helper_in = [](const std::string& dir, const std::string& rel) {
      return rel == "." ? dir + "/trainer-pod" : dir + "/" + rel + "/trainer-pod";
    };
    if (!exe_dir.empty()) {
      add(helper_in(exe_dir, "."));
      add(helper_in(exe_dir, TRAINER_POD_HELPER_FROM_TOOLSDIR));
    }
    if (!lib_dir.empty()) add(helper_in(lib_dir, TRAINER_POD_HELPER_FROM_LIBDIR));
    char build_tree[PATH_MAX];
    const auto code_dir = (lib_dir.empty() ? exe_dir : lib_dir) + "/";
    if (realpath(TRAINER_BUILD_TREE, build_tree) != nullptr &&
        code_dir.rfind(std::string(build_tree) + "/", 0) == 0) {
      add(TRAINER_POD_HELPER_BUILD_PATH);
    }
  }
  for (const auto& c : candidates) {
    if (!executable(c)) continue;
    char real[PATH_MAX];
    if (realpath(c.c_str(), real) != nullptr) return std::string(real);
  }
  std::string tried;
  for (const auto& c : candidates) tried += (tried.empty() ? "" : ", ") + c;
  return fail(ErrorCode::kNotFound, "the pod helper trainer-pod was not found (tried: " + tried +
                                        "); set ExecutorOptions::pod_helper or TRAINER_POD_HELPER");
}

// search_helper's answer for the same option and $TRAINER_POD_HELPER, kept for the process (a
// tuning run starts an executor per trial; the search resolves every candidate's links): used
// again while it is still an executable, searched again when it is gone.
Result<std::string> find_helper(const ExecutorOptions& options) {
  static std::mutex mu;
  static std::map<std::pair<std::string, std::string>, std::string> found;
  const char* env = std::getenv("TRAINER_POD_HELPER");
  auto key = std::make_pair(options.pod_helper, std::string(env != nullptr ? env : ""));
  {
    std::lock_guard<std::mutex> lock(mu);
    if (const auto hit = found.find(key); hit != found.end() && executable(hit->second)) {
      return hit->second;
    }
  }
  auto searched = search_helper(options);
  if (searched) {
    std::lock_guard<std::mutex> lock(mu);
    found[std::move(key)] = *searched;
  }
  return searched;
}

std::string hosts_file(const Plan& plan, const std::vector<std::string>& loopback_names) {
  std::string out = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n";
  if (!loopback_names.empty()) {
    out += "127.0.0.1\t";
    for (std::size_t i = 0; i < loopback_names.size(); ++i) {
      out += (i == 0 ? "" : " ") + loopback_names[i];
    }
    out += "\n";
  }
  for (const auto& pod : plan.pods) {
    out += pod.address + "\t" + pod.fqdn + "." + plan.namespace_ + ".svc.cluster.local " +
           pod.fqdn + " " + pod.hostname + "\n";
  }
  return out;
}

bool has_space(const std::string& s) {
  return s.find_first_of(" \t\n") != std::string::npos;
}

std::string rsh_agent(const LaunchConfig& config) {
  return config.helper + " rsh --run-dir=" + config.run_dir;
}

// Pod env, final: the container's, the injected rsh agent, and the fallback's rewrites.
Result<EnvList> pod_env(const Plan& plan, const PodPlan& pod, const std::string& name,
                        const LaunchConfig& config) {
  PodIdentity id{name, plan.namespace_ + "/" + name, config.node_name};
  auto env = resolve_env(plan, pod, id, config.host_env);
  if (!env) return env;
  const bool has_agent = std::any_of(env->begin(), env->end(), [](const auto& kv) {
    return kv.first == "OMPI_MCA_plm_rsh_agent";
  });
  if (!has_agent && config.namespaces && !has_space(config.helper) && !has_space(config.run_dir)) {
    env->emplace_back("OMPI_MCA_plm_rsh_agent", rsh_agent(config));
  }
  if (!config.namespaces) {
    for (auto& kv : *env) {
      kv.second = rewrite_hostnames(kv.second, plan, "127.0.0.1", config.loopback_names);
    }
  }
  return env;
}

// Without namespaces nothing is mounted at a mountPath: env values that name a file below a
// projected token volume's mountPath (KUBEFLOW_TRAINER_SERVER_TOKEN and _CA_CERT) name it in the
// volume's folder of the attempt instead, so the program finds its token and CA.
void point_env_at_token_volumes(const PodPlan& pod, const std::string& volumes_dir, EnvList& env) {
  for (const auto& mount : pod.container.mounts) {
    const auto volume = std::find_if(pod.volumes.begin(), pod.volumes.end(),
                                     [&](const Volume& v) { return v.name == mount.volume; });
    if (volume == pod.volumes.end() || volume->tokens.empty() || !mount.sub_path.empty() ||
        !mount.sub_path_expr.empty()) {
      continue;
    }
    const std::string prefix = mount.mount_path + (mount.mount_path.back() == '/' ? "" : "/");
    for (auto& kv : env) {
      if (kv.second.rfind(prefix, 0) != 0) continue;
      kv.second = volumes_dir + "/" + volume->name + "/" + kv.second.substr(prefix.size());
    }
  }
}

// Creates (or adopts) the run folder and its fixed content: 0700 when the plan holds Secrets
// (their values land in pod specs and volumes), logs/, pods/, claims/ (when a pod has a claim),
// sockets/ (0700) and the hosts file, all below a descriptor of the folder without following
// links. Sets `config.run_dir` to its canonical path and keeps the folder, logs/ and pods/ open
// in `config`.
Result<void> make_run_folder(const Plan& plan, LaunchConfig& config, const std::string& path) {
  std::string& real = config.run_dir;
  const bool secrets = !plan.secrets.empty();
  auto run = open_root(path, secrets ? 0700 : 0755);
  if (!run) return tl::unexpected(std::move(run.error()));
  // The folder's canonical path: what the kernel says of its open descriptor (one call), or
  // realpath (a readlink per element of the path) where /proc is not mounted.
  char buf[PATH_MAX];
  const std::string fd_link = "/proc/self/fd/" + std::to_string(run->get());
  const ssize_t n = readlink(fd_link.c_str(), buf, sizeof buf - 1);
  if (n > 0 && buf[0] == '/') {
    real.assign(buf, static_cast<std::size_t>(n));
  } else if (realpath(path.c_str(), buf) != nullptr) {
    real = buf;
  } else {
    return fail(ErrorCode::kIo, path + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (fstatat(run->get(), "state.json", &st, AT_SYMLINK_NOFOLLOW) == 0) {
    return fail(ErrorCode::kInvalidArgument,
                real + " already holds a run (state.json); choose another run folder");
  }
  if (secrets && fchmod(run->get(), 0700) != 0) {
    return fail(ErrorCode::kIo, "making " + real + " private: " + std::strerror(errno));
  }
  auto logs = open_below(run->get(), "logs", true, real);
  if (!logs) return tl::unexpected(std::move(logs.error()));
  auto pods = open_below(run->get(), "pods", true, real);
  if (!pods) return tl::unexpected(std::move(pods.error()));
  // claims/ only in a run whose pods have a claim (a run without one has no use for it).
  const bool claims = std::any_of(plan.pods.begin(), plan.pods.end(), [](const PodPlan& pod) {
    return std::any_of(pod.volumes.begin(), pod.volumes.end(),
                       [](const Volume& v) { return v.kind == Volume::Kind::kClaim; });
  });
  if (claims) {
    auto made = open_below(run->get(), "claims", true, real);
    if (!made) return tl::unexpected(std::move(made.error()));
  }
  auto sockets = open_below(run->get(), "sockets", true, real, 0700);
  if (!sockets) return tl::unexpected(std::move(sockets.error()));
  if (fchmod(sockets->get(), 0700) != 0) {
    return fail(ErrorCode::kIo, "making " + real + "/sockets private: " + std::strerror(errno));
  }
  auto hosts =
      write_file_below(run->get(), "hosts", hosts_file(plan, config.loopback_names), 0644, real);
  if (!hosts) return hosts;
  config.run_folder = std::move(*run);
  config.logs_folder = std::move(*logs);
  config.pods_folder = std::move(*pods);
  return {};
}

}  // namespace

Result<LaunchConfig> prepare_run(const Plan& plan, const ExecutorOptions& options) {
  if (options.run_dir.empty()) {
    return fail(ErrorCode::kInvalidArgument, "ExecutorOptions::run_dir is required");
  }
  LaunchConfig config;
  // Everything that can refuse the run is checked before the run folder is touched.
  config.run_dir = options.run_dir;
  const bool capable = can_create_namespaces();
  switch (options.isolation) {
    case Isolation::kNamespaces:
      if (!capable) {
        return fail(ErrorCode::kUnsupported,
                    "isolation=namespaces needs CAP_SYS_ADMIN (run as root)");
      }
      config.namespaces = true;
      break;
    case Isolation::kAuto: config.namespaces = capable; break;
    case Isolation::kHost: config.namespaces = false; break;
  }
  if (!config.namespaces) {
    config.warnings.push_back(
        "pods run without namespaces: pod hostnames are rewritten to 127.0.0.1 in env and args, "
        "volumes are not mounted at their mountPath, and the hostname is this machine's "
        "(docs/local.md, \"Without privileges\")");
  }
  config.parent_pid = config.namespaces ? proc_pid() : static_cast<long>(getpid());
  auto helper = find_helper(options);
  if (!helper) return tl::unexpected(helper.error());
  config.helper = *helper;
  // Its exec runs while the rest of the run is prepared.
  prepare_pod_launcher(config.helper);
  for (const auto& name : options.host_env) {
    if (const char* v = std::getenv(name.c_str())) config.host_env.emplace_back(name, v);
  }
  // One fresh rendezvous secret per run, in every pod that sets none (docs/collectives.md).
  auto secret = collectives::new_rendezvous_secret();
  if (!secret) return tl::unexpected(secret.error());
  config.host_env.emplace_back(collectives::kRendezvousSecretEnv, std::move(*secret));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  config.node_name = host;
  // Projected tokens exist only where a progress server issues them.
  config.progress = options.progress_server;
  if (config.progress) {
    const std::string service = config.progress->service_host();
    config.loopback_names = {service + ".cluster.local", service};
  } else {
    for (const auto& pod : plan.pods) {
      for (const auto& volume : pod.volumes) {
        if (volume.tokens.empty()) continue;
        return fail(ErrorCode::kUnsupported,
                    volume.tokens.front().field +
                        ": a local run issues service account tokens only for its TrainJobStatus "
                        "progress server (trainerctl run --feature-gates TrainJobStatus=true; "
                        "ExecutorOptions::progress_server)");
      }
    }
  }
  // A pod asking for a user this executor cannot give is refused now (docs/local.md, "Users").
  if (auto users = check_pod_users(plan, current_identity()); !users) {
    return tl::unexpected(std::move(users.error()));
  }
  // Every unresolvable env entry is reported now, not when its pod would start.
  for (const auto& pod : plan.pods) {
    auto env = pod_env(plan, pod, pod.hostname + "-0", config);
    if (!env) return tl::unexpected(std::move(env.error()));
  }
  if (auto made = make_run_folder(plan, config, options.run_dir); !made) {
    return tl::unexpected(std::move(made.error()));
  }
  if (config.namespaces && (has_space(config.helper) || has_space(config.run_dir))) {
    config.warnings.push_back(
        "the run folder or the helper path contains whitespace, which Open MPI's rsh agent "
        "setting cannot carry: OMPI_MCA_plm_rsh_agent is not set");
  }
  return config;
}

Result<PreparedPod> prepare_pod(const Plan& plan, std::size_t index, const std::string& name,
                                const LaunchConfig& config) {
  const auto& pod = plan.pods[index];
  // The attempt's folder, its volumes and its spec, all below the run folder's descriptor.
  const int run_fd = config.run_folder.get();
  auto pod_dir = open_below(config.pods_folder.get(), name, true, config.run_dir + "/pods");
  if (!pod_dir) return tl::unexpected(std::move(pod_dir.error()));
  const std::string dir = config.run_dir + "/pods/" + name;

  auto env = pod_env(plan, pod, name, config);
  if (!env) return tl::unexpected(std::move(env.error()));
  if (!config.namespaces) point_env_at_token_volumes(pod, dir + "/volumes", *env);
  std::map<std::string, std::string> vars(env->begin(), env->end());
  TokenIssuer issue_token;
  if (config.progress) {
    issue_token = [&config, &name](const TokenFile& token) {
      return config.progress->impl().issue_token(token.audience, config.run_dir, name,
                                                 std::chrono::seconds(token.expiration_seconds));
    };
  }
  auto mounts = prepare_volumes(pod, PodFolder{config.run_dir, run_fd, name, pod_dir->get()},
                                config.namespaces, vars, issue_token);
  if (!mounts) return tl::unexpected(std::move(mounts.error()));

  json::array argv;
  for (const auto& a : pod.container.command) {
    auto arg = expand(a, vars);
    if (!config.namespaces) {
      arg = rewrite_hostnames(std::move(arg), plan, "127.0.0.1", config.loopback_names);
    }
    argv.emplace_back(arg);
  }
  json::array env_json;
  for (const auto& [k, v] : *env) env_json.emplace_back(k + "=" + v);

  auto user = resolve_pod_user(pod.container.security, current_identity(), pod.hostname);
  if (!user) return tl::unexpected(std::move(user.error()));
  if (auto given = give_volumes(pod, config.run_dir, dir, *user); !given) {
    return tl::unexpected(std::move(given.error()));
  }
  const json::object spec{{"namespaces", config.namespaces},
                          {"executorPid", config.parent_pid},
                          {"hostname", pod.hostname},
                          {"hostsFile", config.namespaces ? config.run_dir + "/hosts" : ""},
                          {"mounts", std::move(*mounts)},
                          {"argv", std::move(argv)},
                          {"env", std::move(env_json)},
                          {"workingDir", pod.container.working_dir},
                          {"socketDir", config.run_dir + "/sockets"},
                          {"socketName", pod.hostname},
                          {"holdOnly", pod.holds_namespaces_only},
                          {"graceSeconds", pod.grace_seconds},
                          {"user", pod_user_json(*user)}};
  PreparedPod out;
  out.spec_path = dir + "/spec.json";
  // The spec holds resolved Secret values: readable by the owner only.
  if (auto w = write_file_below(pod_dir->get(), "spec.json", json::serialize(spec), 0600, dir);
      !w) {
    return tl::unexpected(w.error());
  }
  out.log_path = config.run_dir + "/logs/" + name + ".log";
  auto log =
      create_file_at(config.logs_folder.get(), name + ".log", 0644, config.run_dir + "/logs");
  if (!log) return tl::unexpected(std::move(log.error()));
  out.log = std::move(*log);
  return out;
}

namespace {

// One pod's helper about to start: its pipes (stdout, stderr, readiness: fd 3 of the helper),
// /dev/null for its stdin and the argv its request points into.
struct PodStart {
  PreparedPod pod;
  Fd ends[3][2];
  Fd devnull;
  std::string helper, init = "init", spec_arg;
  char* args[4] = {};
};

}  // namespace

std::vector<Result<Launched>> start_pods(std::vector<Result<PreparedPod>> prepared,
                                         const LaunchConfig& config) {
  std::vector<Result<Launched>> out(prepared.size(), Launched{});
  // Every pod's pipes first; out of descriptors is a failed pod, not a leak that makes every
  // later pod fail too. The starts live in a list that never moves: the requests point into it.
  std::vector<std::unique_ptr<PodStart>> starts(prepared.size());
  std::vector<SpawnRequest> requests;
  std::vector<std::size_t> which;
  for (std::size_t k = 0; k < prepared.size(); ++k) {
    if (!prepared[k]) {
      out[k] = tl::unexpected(std::move(prepared[k].error()));
      continue;
    }
    auto start = std::make_unique<PodStart>();
    start->pod = std::move(*prepared[k]);
    bool piped = true;
    for (auto& end : start->ends) {
      int p[2];
      if (pipe2(p, O_CLOEXEC) != 0) {
        out[k] = fail(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
        piped = false;
        break;
      }
      end[0] = Fd(p[0]);
      end[1] = Fd(p[1]);
    }
    if (!piped) continue;
    start->devnull = Fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
    start->helper = config.helper;
    start->spec_arg = start->pod.spec_path;
    start->args[0] = start->helper.data();
    start->args[1] = start->init.data();
    start->args[2] = start->spec_arg.data();
    SpawnRequest request;
    request.path = start->helper.c_str();
    request.argv = start->args;
    request.namespaces = config.namespaces;
    // Under namespaces SIGKILL takes the pod's PID namespace with it; without, SIGTERM lets the
    // helper end the container's group.
    request.death_signal = config.namespaces ? SIGKILL : SIGTERM;
    request.fds[0] = start->devnull.get();
    request.fds[1] = start->ends[0][1].get();
    request.fds[2] = start->ends[1][1].get();
    request.fds[3] = start->ends[2][1].get();
    requests.push_back(request);
    which.push_back(k);
    starts[k] = std::move(start);
  }
  auto spawned = launch_pod_inits(requests);
  for (std::size_t r = 0; r < which.size(); ++r) {
    const std::size_t k = which[r];
    if (!spawned[r]) {
      out[k] = tl::unexpected(std::move(spawned[r].error()));
      continue;
    }
    PodStart& start = *starts[k];
    Launched launched;
    launched.pid = spawned[r]->pid;
    launched.pidfd = spawned[r]->pidfd;
    launched.stdout_fd = start.ends[0][0].release();
    launched.stderr_fd = start.ends[1][0].release();
    launched.ready_fd = start.ends[2][0].release();
    launched.log_fd = start.pod.log.release();
    launched.log_path = std::move(start.pod.log_path);
    out[k] = std::move(launched);
  }
  return out;
}

}  // namespace trainer::local::detail
