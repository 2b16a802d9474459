// SPDX-License-Identifier: Apache-2.0
// trainer_convert*: the C face of trainer::convert::convert_documents. The text and the objects'
// JSON are made once, with the result, so that the accessors only hand out pointers and the
// result is immutable.
#include "trainer/convert.hpp"
#include "capi/capi.hpp"
#include "capi/options_version.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

struct trainer_convert_result {
  std::string text;
  std::vector<std::string> objects;  ///< compact JSON
  std::vector<std::string> warnings;
};

namespace {

namespace json = boost::json;
using trainer::capi::guard;
using trainer::capi::guard_value;
using trainer::capi::guard_void;
using trainer::capi::known_format;
using trainer::capi::set_error;

// As trainer_render_result_encode: a YAML stream, or a `v1` `List`.
std::string encode(const std::vector<json::value>& objects, trainer_format fmt) {
  if (fmt == TRAINER_FORMAT_YAML) return trainer::encode_yaml_stream(objects);
  json::object list;
  list["apiVersion"] = "v1";
  list["kind"] = "List";
  list["items"] = json::array(objects.begin(), objects.end());
  return trainer::encode_json(list, fmt == TRAINER_FORMAT_JSON_PRETTY);
}

}  // namespace

extern "C" {

trainer_status trainer_convert_options_init(trainer_convert_options* opts, uint32_t version) {
  return trainer::capi::init_options(opts, version, TRAINER_CONVERT_OPTIONS_VERSION,
                                     trainer_convert_options TRAINER_CONVERT_OPTIONS_INIT);
}

trainer_status trainer_convert(const char* data, size_t len, const trainer_convert_options* opts,
                               trainer_convert_result** out, trainer_error** err) {
  return guard(err, [&] {
    if (out != nullptr) *out = nullptr;
    if (out == nullptr) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT, "trainer_convert: out is NULL");
    }
    if (data == nullptr && len != 0) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                       "trainer_convert: data is NULL but len is not 0");
    }
    trainer_convert_options options = TRAINER_CONVERT_OPTIONS_INIT;
    if (opts != nullptr) {
      if (!trainer::capi::known_version(opts->version, TRAINER_CONVERT_OPTIONS_VERSION)) {
        return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                         "trainer_convert: unsupported trainer_convert_options version " +
                             std::to_string(opts->version));
      }
      options = *opts;  // version 1 is the whole struct
    }
    if (!known_format(options.format)) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                       "trainer_convert: unknown format " + std::to_string(options.format));
    }
    trainer::DecodeOptions limits;
    if (auto bad = trainer::capi::apply_parse_options(options.parse, limits)) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT, "trainer_convert: " + *bad);
    }
    auto objects =
        trainer::capi::read_objects(std::string_view(data == nullptr ? "" : data, len), limits);
    if (!objects) return set_error(err, objects.error());

    auto result = std::make_unique<trainer_convert_result>();
    trainer::convert::Options convert_options;
    convert_options.strict = options.strict != 0;
    if (options.namespace_name != nullptr) convert_options.namespace_ = options.namespace_name;
    auto converted = trainer::convert::convert_documents(
        std::move(*objects), convert_options,
        [&result](std::string_view w) { result->warnings.emplace_back(w); });
    if (!converted) return set_error(err, converted.error());
    result->text = encode(*converted, options.format);
    result->objects.reserve(converted->size());
    for (const auto& object : *converted) result->objects.push_back(trainer::encode_json(object));
    *out = result.release();
    return TRAINER_OK;
  });
}

void trainer_convert_result_free(trainer_convert_result* result) {
  guard_void([&] { delete result; });
}

const char* trainer_convert_result_text(const trainer_convert_result* result) {
  return guard_value<const char*>("",
                                  [&] { return result == nullptr ? "" : result->text.c_str(); });
}

size_t trainer_convert_result_count(const trainer_convert_result* result) {
  return guard_value<size_t>(0, [&] { return result == nullptr ? 0 : result->objects.size(); });
}

const char* trainer_convert_result_json(const trainer_convert_result* result, size_t i) {
  return guard_value<const char*>(nullptr, [&]() -> const char* {
    if (result == nullptr || i >= result->objects.size()) return nullptr;
    return result->objects[i].c_str();
  });
}

size_t trainer_convert_result_warning_count(const trainer_convert_result* result) {
  return guard_value<size_t>(0, [&] { return result == nullptr ? 0 : result->warnings.size(); });
}

const char* trainer_convert_result_warning(const trainer_convert_result* result, size_t i) {
  return guard_value<const char*>(nullptr, [&]() -> const char* {
    if (result == nullptr || i >= result->warnings.size()) return nullptr;
    return result->warnings[i].c_str();
  });
}

}  // extern "C"
