// SPDX-License-Identifier: Apache-2.0
//
// fuzz_render: the whole admission + render pipeline on one input text, as `trainerctl render`
// and trainer_render run it: parse_documents (default limits) -> render_documents (decode,
// default, admit with every plugin's validation, render; built-in runtimes allowed) -> the YAML
// stream and the JSON List of the objects. The context is fixed (UID, clock, a pre-generated SSH
// key), so a render is deterministic and spends no time generating keys. Checks: no crash, and
// every output and error text is valid UTF-8; the YAML stream parses back to the objects.
#include "fuzz_common.hpp"
#include "trainer/render.hpp"
#include "trainer/ssh.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace {

trainer::RenderContext make_context() {
  const std::string path = std::string(TRAINER_FUZZ_SSH_KEY_DIR) + "/ssh-key.pem";
  std::ifstream in(path, std::ios::binary);
  std::ostringstream pem;
  pem << in.rdbuf();
  auto pair = trainer::ssh_key_pair_from_private_key(pem.str());
  if (!pair) {
    std::fprintf(stderr, "fuzz_render: %s: %s\n", path.c_str(), pair.error().message.c_str());
    std::abort();
  }
  trainer::RenderContext ctx;
  ctx.train_job_uid = "3f0c9a6e-5b1d-4c2e-9a7f-0d1e2c3b4a59";
  ctx.now = [] { return std::string("2025-01-01T00:00:00Z"); };
  ctx.generate_ssh_key = [pair = std::move(*pair)]() -> trainer::Result<trainer::SshKeyPair> {
    return pair;
  };
  return ctx;
}

const trainer::RenderContext& context() {
  static const trainer::RenderContext ctx = make_context();
  return ctx;
}

void check_error(const trainer::Error& error) {
  trainer::fuzz::check_utf8("error message", error.message);
  for (const auto& field : error.fields) {
    trainer::fuzz::check_utf8("field error", field.to_string());
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  (void)context();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto docs = trainer::parse_documents(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!docs) return 0;  // the parser has its own targets
  trainer::RenderDocumentsOptions options;
  options.builtin_runtimes = true;
  options.on_warning = [](std::string_view w) { trainer::fuzz::check_utf8("warning", w); };
  auto out = trainer::render_documents(std::move(*docs), context(), options);
  if (!out) {
    check_error(out.error());
    return 0;
  }
  trainer::fuzz::check_utf8("skipped reason", out->skipped_reason);
  const std::string yaml = trainer::encode_yaml_stream(out->objects);
  trainer::fuzz::check_utf8("rendered YAML", yaml);
  auto back = trainer::parse_documents(yaml);
  if (!back || back->size() != out->objects.size()) {
    trainer::fuzz::fail_check("rendered YAML does not parse back to its objects", yaml);
  }
  for (std::size_t i = 0; i < back->size(); ++i) {
    if (!trainer::fuzz::same_value(out->objects[i], (*back)[i])) {
      trainer::fuzz::fail_check("rendered YAML reads back as another object", yaml);
    }
  }
  boost::json::object list;
  list["apiVersion"] = "v1";
  list["kind"] = "List";
  list["items"] = boost::json::array(out->objects.begin(), out->objects.end());
  trainer::fuzz::check_utf8("rendered JSON", trainer::encode_json(list, true));
  return 0;
}
