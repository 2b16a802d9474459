// SPDX-License-Identifier: Apache-2.0
// trainer_render*: the C face of trainer::render_documents. Objects are serialized once, when
// the result is made, so that the accessors only hand out pointers and the result is immutable.
#include "trainer/render.hpp"
#include "capi/capi.hpp"
#include "capi/options_version.hpp"
#include "capi/plugin.hpp"
#include "trainer/json_path.hpp"
#include "trainer/ssh.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct trainer_render_object {
  std::string json;  ///< compact JSON
  trainer::capi::ObjectHeader header;
};

struct trainer_render_result {
  std::vector<boost::json::value> objects;
  std::vector<trainer_render_object> texts;  ///< parallel to `objects`
  std::vector<std::string> warnings;
  std::string skipped_reason;
};

namespace {

namespace json = boost::json;
using trainer::capi::guard;
using trainer::capi::guard_value;
using trainer::capi::guard_void;
using trainer::capi::set_error;

trainer_render_object describe(const json::value& object) {
  return trainer_render_object{trainer::encode_json(object), trainer::capi::object_header(object)};
}

bool nonempty(const char* s) {
  return s != nullptr && *s != '\0';
}

// Whether the TrainJob among `objects` carries a `metadata.uid` of its own.
bool train_job_has_uid(const std::vector<json::value>& objects) {
  for (const auto& value : objects) {
    const auto* obj = value.if_object();
    if (obj == nullptr || trainer::find_string(*obj, "kind").value_or("") != "TrainJob") {
      continue;
    }
    const auto* meta = trainer::find_object(*obj, {"metadata"});
    if (meta != nullptr && !trainer::find_string(*meta, "uid").value_or("").empty()) {
      return true;
    }
  }
  return false;
}

// The render context the options describe; an error message when one of them is unusable.
trainer::Result<trainer::RenderContext> make_context(const trainer_render_options& opts,
                                                     const std::vector<json::value>& objects) {
  const bool own_uid = !nonempty(opts.uid) && train_job_has_uid(objects);
  trainer::RenderContext ctx = trainer::system_render_context(nonempty(opts.uid) ? opts.uid : "");
  if (own_uid) ctx.train_job_uid.clear();  // render() then uses the TrainJob's metadata.uid
  if (nonempty(opts.ssh_private_key)) {
    // Parsed now, so that a bad key fails the call even when no MPI Secret is built.
    auto pair = trainer::ssh_key_pair_from_private_key(opts.ssh_private_key);
    if (!pair) return tl::unexpected(std::move(pair).error());
    ctx.generate_ssh_key = [pair = std::move(*pair)]() -> trainer::Result<trainer::SshKeyPair> {
      return pair;
    };
  }
  if (nonempty(opts.now)) {
    ctx.now = [now = std::string(opts.now)] { return now; };
  }
  return ctx;
}

// Bytes of each struct version: a caller built against an older header has a shorter struct.
constexpr std::size_t options_size(uint32_t version) {
  return version >= 3   ? sizeof(trainer_render_options)
         : version == 2 ? offsetof(trainer_render_options, progress_server)
                        : offsetof(trainer_render_options, framework);
}

trainer_status option_error(trainer_error** err, const trainer::Error& error) {
  return set_error(err, TRAINER_E_INVALID_ARGUMENT, "trainer_render: " + error.message);
}

}  // namespace

extern "C" {

trainer_status trainer_render_options_init(trainer_render_options* opts, uint32_t version) {
  return trainer::capi::init_options(opts, version, TRAINER_RENDER_OPTIONS_VERSION,
                                     trainer_render_options TRAINER_RENDER_OPTIONS_INIT,
                                     options_size);
}

trainer_status trainer_render(const char* data, size_t len, const trainer_render_options* opts,
                              trainer_render_result** out, trainer_error** err) {
  return guard(err, [&] {
    if (out != nullptr) *out = nullptr;
    if (out == nullptr) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT, "trainer_render: out is NULL");
    }
    if (data == nullptr && len != 0) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                       "trainer_render: data is NULL but len is not 0");
    }
    trainer_render_options options = TRAINER_RENDER_OPTIONS_INIT;
    if (opts != nullptr) {
      if (!trainer::capi::known_version(opts->version, TRAINER_RENDER_OPTIONS_VERSION)) {
        return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                         "trainer_render: unsupported trainer_render_options version " +
                             std::to_string(opts->version));
      }
      std::memcpy(static_cast<void*>(&options), opts, options_size(opts->version));
    }
    auto plugins =
        trainer::capi::plugins_of("trainer_render", options.feature_gates, options.framework);
    if (!plugins) return set_error(err, plugins.error());
    const trainer::Framework* framework = plugins->get();
    trainer::DecodeOptions limits;
    if (auto bad = trainer::capi::apply_parse_options(options.parse, limits)) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT, "trainer_render: " + *bad);
    }
    auto objects =
        trainer::capi::read_objects(std::string_view(data == nullptr ? "" : data, len), limits);
    if (!objects) return set_error(err, objects.error());
    auto ctx = make_context(options, *objects);
    if (!ctx) return option_error(err, ctx.error());
    std::optional<trainer::Framework> for_server;
    if (options.progress_server != nullptr) {
      for_server = options.progress_server->server->configure(*ctx, *framework);
      framework = &*for_server;
    }

    auto result = std::make_unique<trainer_render_result>();
    trainer::RenderDocumentsOptions render_options;
    if (nonempty(options.namespace_name)) render_options.namespace_ = options.namespace_name;
    render_options.builtin_runtimes = options.builtin_runtimes != 0;
    render_options.framework = framework;
    render_options.on_warning = [&result](std::string_view w) { result->warnings.emplace_back(w); };
    auto rendered = trainer::render_documents(std::move(*objects), *ctx, render_options);
    if (!rendered) return set_error(err, rendered.error());
    result->objects = std::move(rendered->objects);
    result->skipped_reason = std::move(rendered->skipped_reason);
    result->texts.reserve(result->objects.size());
    for (const auto& object : result->objects) result->texts.push_back(describe(object));
    *out = result.release();
    return TRAINER_OK;
  });
}

void trainer_render_result_free(trainer_render_result* result) {
  guard_void([&] { delete result; });
}

size_t trainer_render_result_count(const trainer_render_result* result) {
  return guard_value<size_t>(0, [&] { return result == nullptr ? 0 : result->texts.size(); });
}

}  // extern "C"

namespace {

// Field `member` of the header of object `i`, or NULL when `result` is NULL or `i` out of range.
const char* header_field(const trainer_render_result* result, size_t i,
                         std::string trainer::capi::ObjectHeader::*member) {
  return guard_value<const char*>(nullptr, [&]() -> const char* {
    if (result == nullptr || i >= result->texts.size()) return nullptr;
    return (result->texts[i].header.*member).c_str();
  });
}

}  // namespace

extern "C" {

const char* trainer_render_result_json(const trainer_render_result* result, size_t i) {
  return guard_value<const char*>(nullptr, [&]() -> const char* {
    if (result == nullptr || i >= result->texts.size()) return nullptr;
    return result->texts[i].json.c_str();
  });
}

const char* trainer_render_result_kind(const trainer_render_result* result, size_t i) {
  return header_field(result, i, &trainer::capi::ObjectHeader::kind);
}

const char* trainer_render_result_api_version(const trainer_render_result* result, size_t i) {
  return header_field(result, i, &trainer::capi::ObjectHeader::api_version);
}

const char* trainer_render_result_name(const trainer_render_result* result, size_t i) {
  return header_field(result, i, &trainer::capi::ObjectHeader::name);
}

const char* trainer_render_result_namespace(const trainer_render_result* result, size_t i) {
  return header_field(result, i, &trainer::capi::ObjectHeader::namespace_);
}

size_t trainer_render_result_warning_count(const trainer_render_result* result) {
  return guard_value<size_t>(0, [&] { return result == nullptr ? 0 : result->warnings.size(); });
}

const char* trainer_render_result_warning(const trainer_render_result* result, size_t i) {
  return guard_value<const char*>(nullptr, [&]() -> const char* {
    if (result == nullptr || i >= result->warnings.size()) return nullptr;
    return result->warnings[i].c_str();
  });
}

const char* trainer_render_result_skipped_reason(const trainer_render_result* result) {
  return guard_value<const char*>(
      "", [&] { return result == nullptr ? "" : result->skipped_reason.c_str(); });
}

trainer_status trainer_render_result_encode(const trainer_render_result* result, trainer_format fmt,
                                            trainer_buffer* out, trainer_error** err) {
  return guard(err, [&] {
    if (result == nullptr || out == nullptr) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                       "trainer_render_result_encode: result or out is NULL");
    }
    if (out->data != nullptr || out->len != 0) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                       "trainer_render_result_encode: out is not empty");
    }
    std::string text;
    if (fmt == TRAINER_FORMAT_YAML) {
      text = trainer::encode_yaml_stream(result->objects);
    } else if (fmt == TRAINER_FORMAT_JSON || fmt == TRAINER_FORMAT_JSON_PRETTY) {
      json::object list;
      list["apiVersion"] = "v1";
      list["kind"] = "List";
      list["items"] = json::array(result->objects.begin(), result->objects.end());
      text = trainer::encode_json(list, fmt == TRAINER_FORMAT_JSON_PRETTY);
    } else {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                       "trainer_render_result_encode: unknown format " + std::to_string(fmt));
    }
    trainer::capi::buffer_assign(out, text);
    return TRAINER_OK;
  });
}

}  // extern "C"
