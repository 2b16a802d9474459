// SPDX-License-Identifier: Apache-2.0
//
// The `trainer-pod` helper executable: `init` (one pod), `rsh` (the MPI rsh agent) and `launch`
// (forks the inits of every pod of an executor process). It is a
// separate program so that pods are forked from a small single-threaded process, never from the
// executor's threads.
#pragma once

#include <cstddef>

namespace trainer::local::helper {

/// Exit code of a pod whose setup (mounts, hostname, socket) failed before the container ran.
inline constexpr int kSetupFailedExit = 125;
/// Largest remote command the rsh agent forwards (one SOCK_SEQPACKET message).
inline constexpr std::size_t kMaxCommand = 128 * 1024;

/// The exec sockets' folder below the run's `sockets/` (the socket of pod hostname H is
/// `<run>/sockets/exec/H`), and where every pod sees it (bound there in the pod's namespace).
inline constexpr const char* kExecSocketSubdir = "exec";
inline constexpr const char* kPodSocketDir = "/run/trainer-pod";

/// The status an exec socket answers to a peer that is neither root nor the pod's user.
inline constexpr int kSessionRefused = -2;

/// The program's dispatch on its subcommand (argv as main's); the launcher's forked inits call
/// it too.
int helper_main(int argc, char** argv);
/// `trainer-pod init SPEC.json`; argv excludes the program and the subcommand.
int pod_init_main(int argc, char** argv);
/// `trainer-pod rsh --run-dir=DIR [ssh options] [user@]host command...`.
int rsh_main(int argc, char** argv);
/// `trainer-pod launch [PADDING]` (launcher.cpp): serves launch_protocol.hpp on descriptor 0;
/// argv as main's (its memory becomes each init's command line).
int launcher_main(int argc, char** argv);

}  // namespace trainer::local::helper
