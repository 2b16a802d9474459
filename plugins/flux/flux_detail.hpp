// SPDX-License-Identifier: Apache-2.0
//
// Pieces of the Flux plugin (kubeflow/trainer pkg/runtime/framework/plugins/flux/flux.go):
// broker settings, script rendering, the CURVE certificate. Internal to trainer_core; OpenSSL
// stays inside flux_curve.cpp.
#pragma once

#include "trainer/error.hpp"
#include "trainer/framework.hpp"
#include "trainer/model.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::plugins::detail {

/// Flux settings with their defaults (`FLUX_VIEW_IMAGE`, `FLUX_NETWORK_DEVICE`,
/// `FLUX_QUEUE_POLICY`).
using FluxSettings = std::map<std::string, std::string>;

/// Defaults, overridden by literal `value`s of the runtime trainer `node` container's env, then
/// by `spec.trainer.env` (an entry without `value` sets ""), as upstream.
[[nodiscard]] FluxSettings flux_broker_settings(const Info& info, const TrainJob& job);

/// (TrainJob command, else the runtime trainer `node` container's) + TrainJob args, joined with
/// single spaces and trimmed of surrounding whitespace.
[[nodiscard]] std::string flux_original_command(const Info& info, const TrainJob& job);

/// `start` when size is 1, else `start-(start+size-1)` (upstream's arithmetic, so 0 gives
/// `0--1`).
[[nodiscard]] std::string flux_range(std::int64_t size, std::int64_t start);
/// `<prefix>-node-0-[<range>]`.
[[nodiscard]] std::string flux_hostlist(std::string_view prefix, std::int64_t size);

/// broker.toml for the job (bind on the network device, connect through the job's headless
/// service in its namespace).
[[nodiscard]] std::string flux_broker_config(std::string_view job_name, std::string_view ns,
                                             std::string_view hosts, const FluxSettings& settings);
/// init.sh of the flux-installer init container.
[[nodiscard]] std::string flux_init_script(std::string_view job_name, std::string_view ns,
                                           std::int64_t num_nodes, const FluxSettings& settings);
/// entrypoint.sh of the `node` container: `tasks` per node, `gpus` per node (0: no GPU flags).
[[nodiscard]] std::string flux_entrypoint_script(std::string_view job_name, std::int64_t tasks,
                                                 std::int64_t num_nodes, std::int64_t gpus);

/// Go's fmt.Sprintf for templates whose only verb is `%s`.
[[nodiscard]] std::string format_template(std::string_view tmpl,
                                          const std::vector<std::string>& params);
[[nodiscard]] std::string_view flux_broker_template();
[[nodiscard]] std::string flux_init_template();
[[nodiscard]] std::string flux_entrypoint_template();

/// ZeroMQ Z85 (RFC 32/Z85): 4 bytes -> 5 characters of
/// `0-9a-zA-Z.-:+=^!/*?&<>()[]{}@%$#`; "" when the length is not a multiple of 4 (as upstream).
[[nodiscard]] std::string z85_encode(std::string_view bytes);

/// Raw 32-byte X25519 keys.
struct CurveKeyPair {
  std::string public_key;
  std::string secret_key;
};
/// The deterministic CURVE key pair of a TrainJob: private key = SHA-256(uid), public key =
/// X25519(private key, 9). Errors (kInternal) only when OpenSSL fails.
[[nodiscard]] Result<CurveKeyPair> flux_curve_key_pair(std::string_view uid);
/// The X25519 public key of a raw 32-byte private key (kInvalidArgument on a wrong length).
[[nodiscard]] Result<std::string> x25519_public_key(std::string_view secret_key);
/// The `curve.cert` text (ZeroMQ CURVE secret certificate) with Z85-encoded keys.
[[nodiscard]] std::string flux_curve_cert(std::string_view job_name, const CurveKeyPair& keys);

}  // namespace trainer::plugins::detail
