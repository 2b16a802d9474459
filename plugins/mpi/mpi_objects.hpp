// SPDX-License-Identifier: Apache-2.0
//
// The Kubernetes values the MPI plugin writes: volumes, mounts, env (reference 4.3.2) and the
// Secret and hostfile ConfigMap (4.3.3). Internal to trainer_core.
#pragma once

#include "trainer/framework.hpp"
#include "trainer/model.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace trainer::plugins::detail::mpi {

inline constexpr const char* kLauncher = "launcher";
/// The most slots a hostfile may list (hosts x slots per host): an MPI rank is a C int.
inline constexpr std::int64_t kMaxMpiSlots = 2147483647;
inline constexpr const char* kOpenMPI = "OpenMPI";
inline constexpr const char* kDefaultSshAuthMountPath = "/root/.ssh";
inline constexpr const char* kSshAuthVolumeName = "mpi-ssh-auth";
inline constexpr const char* kHostfileVolumeName = "mpi-hostfile";
inline constexpr const char* kHostfileDir = "/etc/mpi";
inline constexpr const char* kHostfileName = "hostfile";
inline constexpr const char* kSshAuthSecretSuffix = "-mpi-ssh-auth";
inline constexpr const char* kHostfileConfigMapSuffix = "-mpi-hostfile";
inline constexpr const char* kSshPrivateKeyKey = "ssh-privatekey";  // corev1.SSHAuthPrivateKey
inline constexpr const char* kSshPublicKeyKey = "ssh-publickey";
inline constexpr const char* kSshAuthSecretType = "kubernetes.io/ssh-auth";
inline constexpr std::int64_t kSshAuthDefaultMode = 0400;
inline constexpr std::int64_t kSshPrivateKeyFileMode = 0640;
inline constexpr std::int64_t kSshPublicKeyFileMode = 0644;
inline constexpr std::int64_t kHostfileMode = 0444;

inline constexpr const char* kEnvHostfile = "OMPI_MCA_orte_default_hostfile";
inline constexpr const char* kEnvRshArgs = "OMPI_MCA_plm_rsh_args";
inline constexpr const char* kEnvKeepFqdnHostnames = "OMPI_MCA_orte_keep_fqdn_hostnames";
inline constexpr const char* kEnvDefaultSlots = "OMPI_MCA_orte_set_default_slots";
inline constexpr const char* kRshArgsDefault = "-o ConnectionAttempts=10";

[[nodiscard]] std::string ssh_auth_secret_name(std::string_view job);
[[nodiscard]] std::string hostfile_config_map_name(std::string_view job);

/// Volume `mpi-ssh-auth`: the Secret with mode 0400 and items id_rsa (0640), id_rsa.pub and
/// authorized_keys (0644).
[[nodiscard]] boost::json::object ssh_auth_volume(std::string_view job);
/// Volume `mpi-hostfile`: the ConfigMap's `hostfile` item with mode 0444.
[[nodiscard]] boost::json::object hostfile_volume(std::string_view job);
/// `{"name": name, "mountPath": path}`.
[[nodiscard]] boost::json::object volume_mount(std::string_view name, std::string_view path);
/// The launcher's Open MPI env, in upstream's order: hostfile, keep FQDN host names, default
/// slots, rsh args.
[[nodiscard]] boost::json::array open_mpi_env(std::int32_t slots);

/// Secret `<job>-mpi-ssh-auth` of type kubernetes.io/ssh-auth, immutable, controller-owned,
/// with the base64 of the PEM and of the authorized_keys line.
[[nodiscard]] boost::json::object ssh_auth_secret(const TrainJob& job, std::string_view uid,
                                                  const SshKeyPair& keys);
/// ConfigMap `<job>-mpi-hostfile` with data `hostfile`, controller-owned.
[[nodiscard]] boost::json::object hostfile_config_map(const TrainJob& job, std::string_view uid,
                                                      std::string hostfile);

}  // namespace trainer::plugins::detail::mpi
