// SPDX-License-Identifier: Apache-2.0
//
// The request accessors of trainer/plugin.h (core side, as the host table hands them out): JSON
// pointers with `~1` and `~0` escapes, borrowed texts that stay valid, and the reply setters.
#include "plugin/plugin_internal.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

namespace json = boost::json;

TEST_CASE("request accessors read JSON pointers with escapes", "[plugin]") {
  const trainer_plugin_host* host = trainer::detail::plugin_host_table();
  REQUIRE(host->abi_version == (1U << 16U));
  trainer_plugin_request request;
  request.document = json::parse(R"({"info":{"runtime":{"labels":{
      "trainer.kubeflow.org/framework":"testfw","a~b":"tilde"}}},
      "trainJob":{"spec":{"trainer":{"numNodes":3}}},"list":[10,"x",1.5]})");

  CHECK(std::string(host->request_get_string(
            &request, "/info/runtime/labels/trainer.kubeflow.org~1framework")) == "testfw");
  CHECK(std::string(host->request_get_string(&request, "/info/runtime/labels/a~0b")) == "tilde");
  size_t len = 0;
  const char* labels = host->request_get(&request, "/info/runtime/labels", &len);
  REQUIRE(labels != nullptr);
  CHECK(std::string(labels, len) == R"({"trainer.kubeflow.org/framework":"testfw","a~b":"tilde"})");
  const char* quoted = host->request_get(&request, "/list/1", nullptr);
  REQUIRE(quoted != nullptr);
  CHECK(std::string(quoted) == "\"x\"");
  // The first text is still valid after more were handed out.
  CHECK(std::string(labels, len).size() == std::strlen(labels));

  int64_t n = 0;
  CHECK(host->request_get_int(&request, "/trainJob/spec/trainer/numNodes", &n) == 1);
  CHECK(n == 3);
  CHECK(host->request_get_int(&request, "/list/0", &n) == 1);
  CHECK(n == 10);
  n = 77;
  CHECK(host->request_get_int(&request, "/list/2", &n) == 0);
  CHECK(host->request_get_int(&request, "/list/1", &n) == 0);
  CHECK(n == 77);

  CHECK(host->request_get(&request, "/absent", nullptr) == nullptr);
  CHECK(host->request_get(&request, "no-leading-slash", nullptr) == nullptr);
  CHECK(host->request_get(&request, "/list/9", nullptr) == nullptr);
  CHECK(host->request_get(nullptr, "/info", nullptr) == nullptr);
  CHECK(host->request_get_string(&request, "/list/0") == nullptr);
  CHECK(host->request_get(&request, "", &len) != nullptr);  // "" is the whole document

  const char* whole = host->request_json(&request, &len);
  CHECK(std::strlen(whole) == len);
  CHECK(json::parse(whole) == request.document);
  CHECK(std::string(host->request_json(nullptr, &len)).empty());
  CHECK(len == 0);

  trainer_plugin_reply reply;
  CHECK(host->reply_set(&reply, "{}", 2) == TRAINER_OK);
  CHECK(reply.json == std::optional<std::string>("{}"));
  CHECK(host->reply_set(&reply, nullptr, 3) == TRAINER_E_INVALID_ARGUMENT);
  CHECK(host->reply_set(nullptr, "{}", 2) == TRAINER_E_INVALID_ARGUMENT);
  host->reply_set_error(&reply, "bad");
  CHECK(reply.error_message == "bad");
  host->reply_set_error(&reply, nullptr);
  CHECK(reply.error_message.empty());
}
