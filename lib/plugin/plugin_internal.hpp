// SPDX-License-Identifier: Apache-2.0
//
// Internals of the C plugin bridge: the structs behind the opaque request and reply of
// trainer/plugin.h, the core implementations of their accessors (the exported C functions of
// lib/capi/plugin_request.cpp and the host table forward to these), and the pieces the adapter
// is built from.
#pragma once

#include "trainer.h"
#include "trainer/error.hpp"
#include "trainer/framework.hpp"
#include "trainer/model.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

/// One callback's request: the document and the texts handed out from it. The texts live in a
/// deque so that a pointer returned by an accessor stays valid while later calls add more.
struct trainer_plugin_request {
  boost::json::value document;
  std::optional<std::string> text;  ///< the whole document, serialized on first use
  std::deque<std::string> borrowed;
};

/// Where a callback puts its reply.
struct trainer_plugin_reply {
  std::optional<std::string> json;
  std::string error_message;
  /// The length of a reply refused for its size (0: none); it fails the callback whatever
  /// status the callback returns.
  std::size_t refused_bytes = 0;
};

namespace trainer::detail {

/// The largest reply a callback may set (docs/plugins.md): the codec's limit on a whole input
/// text, checked on the length the plugin reports before anything is copied.
inline constexpr std::size_t kMaxPluginReplyBytes = std::size_t{4} << 20U;

// The accessors of trainer/plugin.h; noexcept (an allocation failure reads as "absent").
const char* plugin_request_json(const trainer_plugin_request* request, size_t* len) noexcept;
const char* plugin_request_get(const trainer_plugin_request* request, const char* pointer,
                               size_t* len) noexcept;
const char* plugin_request_get_string(const trainer_plugin_request* request,
                                      const char* pointer) noexcept;
int32_t plugin_request_get_int(const trainer_plugin_request* request, const char* pointer,
                               int64_t* out) noexcept;
trainer_status plugin_reply_set(trainer_plugin_reply* reply, const char* json, size_t len) noexcept;
void plugin_reply_set_error(trainer_plugin_reply* reply, const char* message) noexcept;

/// The host table (static storage) of these functions.
[[nodiscard]] const trainer_plugin_host* plugin_host_table() noexcept;

/// The extension points, in pipeline order; names as trainer/plugin.h spells them.
enum class PluginPhase {
  kValidate,
  kEnforceMLPolicy,
  kEnforcePodGroupPolicy,
  kEnforcePodSpec,
  kPreBuildSync,
  kBuild,
  kStatus,
};
[[nodiscard]] const char* phase_name(PluginPhase phase) noexcept;

/// What a request is made of; pointers are borrowed for the call.
struct RequestInputs {
  PluginPhase phase = PluginPhase::kValidate;
  const TrainJob* job = nullptr;
  const TrainJob* old_job = nullptr;            ///< validate on update only
  const Info* info = nullptr;                   ///< every phase but status
  const boost::json::object* status = nullptr;  ///< status only
  std::string train_job_uid;
  OperatorConfig config;
  FeatureGates gates;
};

/// The request document of trainer/plugin.h's top comment.
[[nodiscard]] boost::json::object plugin_request_document(const RequestInputs& in);

/// What a checked reply asks for; members absent from the reply stay empty.
struct PluginReply {
  std::optional<boost::json::value> info;       ///< strategic-merge patch of `info`
  std::optional<boost::json::value> train_job;  ///< RFC 7396 patch of the TrainJob
  std::optional<boost::json::value> status;     ///< RFC 7396 patch of the status
  ValidationResult validation;                  ///< errors and warnings
  std::vector<boost::json::value> objects;      ///< build: objects, as the plugin sent them
};

/// Parses and checks the reply text of `phase` (at most kMaxPluginReplyBytes; the codec's JSON
/// depth limits). Errors: kInvalid `plugin "<name>": <phase>: reply: <what, with the path in the
/// reply>`. The objects of a build reply are checked by the Framework, as every plugin's are.
[[nodiscard]] Result<PluginReply> parse_plugin_reply(std::string_view plugin, PluginPhase phase,
                                                     std::string_view text);

/// `plugin "<name>": <phase>: reply: <what>` as a kInvalid error.
[[nodiscard]] Error plugin_reply_error(std::string_view plugin, PluginPhase phase,
                                       const std::string& what);

}  // namespace trainer::detail
