// SPDX-License-Identifier: Apache-2.0
#include "trainer/plugin_support.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

namespace json = boost::json;
using namespace trainer;

namespace {
json::array arr(const char* text) {
  return json::parse(text).as_array();
}
json::object obj(const char* text) {
  return json::parse(text).as_object();
}
}  // namespace

TEST_CASE("upsert_env replaces by name in place, else appends", "[apply]") {
  auto env = arr(R"([{"name":"A","value":"1"},{"name":"B","value":"2"}])");
  upsert_env(env, env_value("A", "one"));
  upsert_env(env, env_field_ref("RANK", kJobCompletionIndexFieldPath));
  CHECK(
      json::serialize(env) ==
      R"([{"name":"A","value":"one"},{"name":"B","value":"2"},{"name":"RANK","valueFrom":)"
      R"({"fieldRef":{"fieldPath":"metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}])");
}

TEST_CASE("upsert_port matches containerPort or name, and nil names are equal", "[apply]") {
  auto ports = arr(R"([{"containerPort":8080}])");
  // No name on either side: the unnamed port is replaced even though the numbers differ.
  upsert_port(ports, obj(R"({"containerPort":29500})"));
  CHECK(json::serialize(ports) == R"([{"containerPort":29500}])");
  auto named = arr(R"([{"name":"http","containerPort":8080}])");
  upsert_port(named, obj(R"({"containerPort":29500})"));
  CHECK(named.size() == 2);
  upsert_port(named, obj(R"({"name":"http","containerPort":9090})"));
  CHECK(json::serialize(named[0]) == R"({"name":"http","containerPort":9090})");
}

TEST_CASE("volumes match by name, mounts by mountPath", "[apply]") {
  auto volumes = arr(R"([{"name":"a","emptyDir":{}}])");
  upsert_volume(volumes, obj(R"({"name":"a","secret":{"secretName":"s"}})"));
  CHECK(json::serialize(volumes) == R"([{"name":"a","secret":{"secretName":"s"}}])");
  auto mounts = arr(R"([{"name":"x","mountPath":"/data"}])");
  upsert_volume_mount(mounts, obj(R"({"name":"y","mountPath":"/data"})"));
  upsert_volume_mount(mounts, obj(R"({"name":"x","mountPath":"/other"})"));
  CHECK(json::serialize(mounts) ==
        R"([{"name":"y","mountPath":"/data"},{"name":"x","mountPath":"/other"}])");
}

TEST_CASE("env_to_apply_form keeps what upstream's apply configuration keeps", "[apply]") {
  CHECK(json::serialize(env_to_apply_form(obj(R"({"name":"E","value":""})"))) ==
        R"({"name":"E","value":""})");
  CHECK(
      json::serialize(env_to_apply_form(obj(
          R"({"name":"P","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}})"))) ==
      R"({"name":"P","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}})");
  CHECK(
      json::serialize(env_to_apply_form(obj(
          R"({"name":"S","valueFrom":{"secretKeyRef":{"name":"s","key":"k","optional":true}}})"))) ==
      R"({"name":"S","valueFrom":{"secretKeyRef":{"name":"s","key":"k","optional":true}}})");
  // Sources the apply configuration does not know are dropped.
  CHECK(json::serialize(env_to_apply_form(
            obj(R"({"name":"F","valueFrom":{"fileKeyRef":{"path":"p","key":"k"}}})"))) ==
        R"({"name":"F"})");
}

TEST_CASE("the upserts give the same lists whether they copy or move the items", "[apply]") {
  const auto env = arr(R"([{"name":"A","value":"1"}])");
  const auto vars = arr(R"([{"name":"A","value":"one"},{"name":"B","value":"2"}])");
  const auto port = obj(R"({"name":"http","containerPort":9090})");
  const auto volume = obj(R"({"name":"data","emptyDir":{}})");
  const auto mount = obj(R"({"name":"data","mountPath":"/data"})");

  auto copied_env = env;
  upsert_env(copied_env, vars);
  upsert_env(copied_env, vars.at(0).as_object());
  auto moved_env = env;
  upsert_env(moved_env, json::array(vars));
  upsert_env(moved_env, json::object(vars.at(0).as_object()));
  CHECK(json::serialize(moved_env) == json::serialize(copied_env));
  CHECK(json::serialize(moved_env) == R"([{"name":"A","value":"one"},{"name":"B","value":"2"}])");

  json::array copied;
  json::array moved;
  upsert_port(copied, port);
  upsert_port(moved, json::object(port));
  upsert_volume(copied, volume);
  upsert_volume(moved, json::object(volume));
  upsert_volume_mount(copied, mount);
  upsert_volume_mount(moved, json::object(mount));
  CHECK(json::serialize(moved) == json::serialize(copied));
  CHECK(copied.size() == 3);
}
