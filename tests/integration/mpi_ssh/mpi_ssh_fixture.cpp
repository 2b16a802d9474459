// SPDX-License-Identifier: Apache-2.0
//
// Test fixture for the MPI/SSH integration tests (mpi_ssh_test.sh):
//
//   mpi_ssh_fixture render --ssh-private-key FILE --out DIR --nodes IP,IP,... --slots N
//                          [--launcher-as-node IP]
//       Runs the MPI plugin (enforce + build, with the key of FILE as `--ssh-private-key` gives
//       it) on a launcher + node runtime whose pods' endpoints are the given loopback
//       addresses, and writes what the launcher pod would see: DIR/hostfile (the ConfigMap's
//       data), DIR/launcher.env (the launcher `node` container's env, NAME=VALUE lines),
//       DIR/id_rsa (0600) and DIR/authorized_keys (the Secret's data, base64-decoded).
//   mpi_ssh_fixture free-port ADDR...      a TCP port that is free on every ADDR
#include "mpi/mpi_plugin.hpp"
#include "trainer/base64.hpp"
#include "trainer/ssh.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

namespace json = boost::json;
using namespace trainer;

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, sep);) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

bool write_file(const std::string& path, const std::string& data, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0 || ::fchmod(fd, mode) != 0) {
    std::perror(path.c_str());
    if (fd >= 0) ::close(fd);
    return false;
  }
  const bool ok = ::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size());
  return ::close(fd) == 0 && ok;
}

int fail(const std::string& message) {
  std::cerr << "mpi_ssh_fixture: " << message << "\n";
  return 1;
}

Container node_container() {
  Container c;
  c.name = "node";
  return c;
}

PodSet pod_set(const char* name, std::optional<std::string> ancestor) {
  PodSet ps;
  ps.name = name;
  ps.ancestor = std::move(ancestor);
  ps.count = 1;
  ps.containers.push_back(node_container());
  return ps;
}

int render(const std::vector<std::string>& args) {
  std::string key_file, out, nodes_arg, launcher_ip;
  int slots = 1;
  for (std::size_t i = 0; i + 1 < args.size(); i += 2) {
    if (args[i] == "--ssh-private-key")
      key_file = args[i + 1];
    else if (args[i] == "--out")
      out = args[i + 1];
    else if (args[i] == "--nodes")
      nodes_arg = args[i + 1];
    else if (args[i] == "--slots")
      slots = std::stoi(args[i + 1]);
    else if (args[i] == "--launcher-as-node")
      launcher_ip = args[i + 1];
    else
      return fail("unknown option " + args[i]);
  }
  const auto nodes = split(nodes_arg, ',');
  if (key_file.empty() || out.empty() || nodes.empty()) return fail("missing options");
  const bool launcher_as_node = !launcher_ip.empty();

  // A runtime like the built-in MPI ones: `node` first, the trainer `launcher` second.
  Info info;
  MLPolicy ml;
  ml.num_nodes = 1;
  MPIMLPolicySource mpi;
  mpi.num_proc_per_node = 1;
  mpi.mpi_implementation = "OpenMPI";
  mpi.ssh_auth_mount_path = "/root/.ssh";
  mpi.run_launcher_as_node = launcher_as_node;
  ml.mpi = mpi;
  info.runtime_policy.ml_policy = ml;
  info.template_spec.pod_sets = {pod_set("node", std::nullopt), pod_set("launcher", "trainer")};

  TrainJob job;
  job.metadata.name = "mpi-ssh";
  job.metadata.namespace_ = "default";
  Trainer trainer;
  trainer.num_nodes = static_cast<std::int32_t>(nodes.size() + (launcher_as_node ? 1 : 0));
  trainer.num_proc_per_node = slots;
  job.spec.trainer = trainer;

  RenderContext ctx;
  ctx.train_job_uid = "integration";
  ctx.generate_ssh_key = [&] { return read_ssh_key_pair_file(key_file); };

  auto plugin = plugins::make_mpi_plugin();
  auto& enforcer = dynamic_cast<EnforceMLPolicyPlugin&>(*plugin);
  auto& builder = dynamic_cast<ComponentBuilderPlugin&>(*plugin);
  if (auto r = enforcer.enforce_ml_policy(info, job, ctx); !r) return fail(r.error().message);
  if (info.template_spec.pod_sets[0].count != static_cast<std::int32_t>(nodes.size())) {
    return fail("unexpected node count");
  }
  // The JobSet pre-build step would set DNS names; the test's hosts are loopback addresses.
  info.template_spec.pod_sets[0].endpoints = nodes;
  info.template_spec.pod_sets[1].endpoints = {launcher_ip.empty() ? "127.0.0.1" : launcher_ip};
  auto objects = builder.build(info, job, ctx);
  if (!objects) return fail(objects.error().message);
  if (objects->size() != 2) return fail("expected the Secret and the hostfile ConfigMap");

  const auto& secret = (*objects)[0].at("data");
  auto pem = trainer::base64_decode(secret.at("ssh-privatekey").as_string());
  auto pub = trainer::base64_decode(secret.at("ssh-publickey").as_string());
  if (!pem || !pub) return fail("Secret data is not base64");
  const std::string hostfile((*objects)[1].at("data").at("hostfile").as_string());

  std::string env;
  for (const auto& var : info.template_spec.pod_sets[1].containers[0].env) {
    env += std::string(var.at("name").as_string()) + "=" +
           std::string(var.at("value").as_string()) + "\n";
  }
  const bool ok =
      write_file(out + "/id_rsa", *pem, 0600) && write_file(out + "/authorized_keys", *pub, 0644) &&
      write_file(out + "/hostfile", hostfile, 0644) && write_file(out + "/launcher.env", env, 0644);
  return ok ? 0 : fail("cannot write outputs");
}

int free_port(const std::vector<std::string>& addresses) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    // Let the kernel pick a port on the first address, then check the others.
    std::vector<int> fds;
    int port = 0;
    bool ok = true;
    for (const auto& addr : addresses) {
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in sa{};
      sa.sin_family = AF_INET;
      sa.sin_port = htons(static_cast<std::uint16_t>(port));
      if (fd < 0 || ::inet_pton(AF_INET, addr.c_str(), &sa.sin_addr) != 1 ||
          ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
        if (fd >= 0) ::close(fd);
        ok = false;
        break;
      }
      fds.push_back(fd);
      if (port == 0) {
        socklen_t len = sizeof sa;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
        port = ntohs(sa.sin_port);
      }
    }
    for (const int fd : fds) ::close(fd);
    if (ok && port != 0) {
      std::cout << port << "\n";
      return 0;
    }
  }
  return fail("no free port on all addresses");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return fail("usage: mpi_ssh_fixture render|free-port ...");
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "render") return render(args);
  if (command == "free-port") return free_port(args);
  return fail("unknown command " + command);
}
