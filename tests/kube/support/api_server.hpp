// SPDX-License-Identifier: Apache-2.0
//
// A real kube-apiserver + etcd for the tests, from the bundle that TRAINER_KUBE_TEST_ENV names
// (../shared/kube-test-env/kube-test-env.tar.xz, or its unpacked folder; `.ci/run` sets it).
//
// - `ApiServer::shared()`: the server the CTest fixture `kube_apiserver` started for this test
//   run (TRAINER_TEST_APISERVER_DIR); tests share it, each in namespaces of its own
//   (`unique_namespace`). Run outside CTest, a private server is started instead.
// - `ApiServer::start_private()`: a server of the test's own, for what changes the server
//   itself (a restart, an etcd compaction, extra flags); stopped and deleted with the object.
// - Without TRAINER_KUBE_TEST_ENV the process prints `SKIPPED: ...` and exits with 77, which
//   CTest reports as a skipped test (SKIP_RETURN_CODE 77).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace trainer::testing {

/// Exits with 77 (skip) and a visible reason when no bundle is configured.
void require_kube_test_env();

class ApiServer {
 public:
  static ApiServer& shared();
  /// `extra_args`: more kube-apiserver flags, e.g. `--watch-cache=false`.
  static std::unique_ptr<ApiServer> start_private(const std::string& extra_args = "");
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  [[nodiscard]] const std::string& dir() const { return dir_; }
  [[nodiscard]] std::string url() const;          ///< https://127.0.0.1:<port>
  [[nodiscard]] std::string token() const;        ///< the admin (system:masters) bearer token
  [[nodiscard]] std::string ca_file() const;      ///< the CA that signed the serving certificate
  [[nodiscard]] std::string kubeconfig() const;   ///< admin kubeconfig (CA inline, token)
  [[nodiscard]] std::string ca_key_file() const;  ///< the CA's key (to issue client certificates)

  /// Stops kube-apiserver and etcd (private servers only), keeping the data.
  void stop();
  /// Starts them again on the same data (the port may change: read url() again).
  void restart();
  /// Compacts etcd at its current revision: every older resourceVersion is gone (410).
  void compact();

  /// A client certificate for `user` in `groups` (CN and O), signed by the server's CA: the
  /// paths of the PEM certificate and key, written into the server's folder.
  [[nodiscard]] std::pair<std::string, std::string> issue_client_cert(
      const std::string& user, const std::vector<std::string>& groups = {});

 private:
  ApiServer(std::string dir, bool owned, std::string extra_args);
  void start();
  std::string dir_;
  bool owned_;
  std::string extra_args_;
};

/// A fresh namespace name (`<prefix>-<random>`) created on `server` through its admin token.
[[nodiscard]] std::string unique_namespace(ApiServer& server, const std::string& prefix);

/// The folder of the unpacked bundle (unpacked once per bundle and machine, under a lock).
[[nodiscard]] std::string kube_test_env_dir();

/// Runs `command` with /bin/sh, returns its stdout; a failure ends the test with a message.
std::string run_or_die(const std::string& command);

}  // namespace trainer::testing
