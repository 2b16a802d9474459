// SPDX-License-Identifier: Apache-2.0
//
// securityContext -> the user a local pod runs as (lib/local/security.cpp, docs/local.md
// "Users"): the kubelet's merge (container over pod), the API server's ID range, the kubelet's
// runAsNonRoot messages, and what a root or non-root executor may do.
#include <catch2/catch.hpp>

#include "local/security.hpp"

#include <boost/json.hpp>

#include <pwd.h>

#include <string>
#include <vector>

namespace {

namespace json = boost::json;
using trainer::FieldError;
using trainer::local::detail::Identity;
using trainer::local::detail::read_security_context;
using trainer::local::detail::resolve_pod_user;
using trainer::local::detail::SecurityContext;

const std::string kPod = "JobSet.spec.replicatedJobs[0].template.spec.template.spec";
const std::string kContainer = kPod + ".containers[0]";

SecurityContext read(const std::string& pod_sc, const std::string& container_sc,
                     std::vector<FieldError>* errors_out = nullptr) {
  const auto pod = json::parse("{" + (pod_sc.empty() ? "" : "\"securityContext\":" + pod_sc) + "}");
  const auto container =
      json::parse("{\"name\":\"node\"" +
                  (container_sc.empty() ? "" : ",\"securityContext\":" + container_sc) + "}");
  std::vector<FieldError> errors;
  auto sc = read_security_context(pod.as_object(), container.as_object(), kPod, kContainer, errors);
  if (errors_out != nullptr) {
    *errors_out = errors;
  } else {
    REQUIRE(errors.empty());
  }
  return sc;
}

const Identity kRoot{0, 0, {}};
const Identity kUser{1000, 1000, {1000, 27}};

std::string message(const SecurityContext& sc, const Identity& self) {
  auto user = resolve_pod_user(sc, self, "probe-node-0-0");
  REQUIRE_FALSE(user.has_value());
  return user.error().message;
}

}  // namespace

TEST_CASE("securityContext: the container's fields win over the pod's, field by field") {
  const auto sc = read(R"({"runAsUser": 1000, "runAsGroup": 2000, "runAsNonRoot": true,
                           "supplementalGroups": [5, 6], "fsGroup": 7})",
                       R"({"runAsUser": 65534})");
  REQUIRE(sc.run_as_user);
  CHECK(sc.run_as_user->value == 65534);
  CHECK(sc.run_as_user->path == kContainer + ".securityContext.runAsUser");
  REQUIRE(sc.run_as_group);
  CHECK(sc.run_as_group->value == 2000);
  CHECK(sc.run_as_group->path == kPod + ".securityContext.runAsGroup");
  REQUIRE(sc.run_as_non_root);
  CHECK(sc.run_as_non_root->value);
  REQUIRE(sc.supplemental_groups.size() == 3);
  CHECK(sc.supplemental_groups[1].path == kPod + ".securityContext.supplementalGroups[1]");
  CHECK(sc.supplemental_groups[2].path == kPod + ".securityContext.fsGroup");
  REQUIRE(sc.fs_group);
  CHECK(sc.fs_group->value == 7);
}

TEST_CASE("securityContext: IDs outside the API server's range are refused with their path") {
  std::vector<FieldError> errors;
  (void)read(R"({"runAsUser": -1, "supplementalGroups": [1, 2147483648]})",
             R"({"runAsGroup": "x", "runAsNonRoot": 1})", &errors);
  REQUIRE(errors.size() == 4);
  CHECK(errors[0].to_string() == kPod +
                                     ".securityContext.runAsUser: Invalid value: -1: must be "
                                     "between 0 and 2147483647, inclusive");
  CHECK(errors[1].path == kPod + ".securityContext.supplementalGroups[1]");
  CHECK(errors[2].path == kContainer + ".securityContext.runAsGroup");
  CHECK(errors[3].to_string() ==
        kContainer + ".securityContext.runAsNonRoot: Invalid value: 1: must be a boolean");
}

TEST_CASE("pod user as root: nothing asked, nothing changed") {
  auto user = resolve_pod_user(read("", ""), kRoot, "p");
  REQUIRE(user.has_value());
  CHECK_FALSE(user->has_value());
}

TEST_CASE("pod user as root: runAsUser takes the user's primary group and groups from the host") {
  passwd* nobody = getpwuid(65534);
  if (nobody == nullptr) {
    WARN("skipped: no uid 65534 in this host's user database");
    return;
  }
  auto user = resolve_pod_user(read(R"({"runAsUser": 65534, "supplementalGroups": [777]})", ""),
                               kRoot, "p");
  REQUIRE(user.has_value());
  REQUIRE(user->has_value());
  CHECK((*user)->uid == 65534U);
  CHECK((*user)->gid == nobody->pw_gid);
  CHECK(std::find((*user)->groups.begin(), (*user)->groups.end(), 777U) != (*user)->groups.end());
}

TEST_CASE("pod user as root: a uid without an entry gets group 0 unless runAsGroup says") {
  // Far above any account this host has.
  REQUIRE(getpwuid(2000000001) == nullptr);
  auto user = resolve_pod_user(read("", R"({"runAsUser": 2000000001})"), kRoot, "p");
  REQUIRE(user.has_value());
  REQUIRE(user->has_value());
  CHECK((*user)->gid == 0U);
  CHECK((*user)->groups.empty());
  user = resolve_pod_user(
      read(R"({"fsGroup": 44})", R"({"runAsUser": 2000000001, "runAsGroup": 42})"), kRoot, "p");
  REQUIRE(user.has_value());
  REQUIRE(user->has_value());
  CHECK((*user)->gid == 42U);
  CHECK((*user)->groups == std::vector<gid_t>{44});
}

TEST_CASE("runAsNonRoot: the kubelet's checks, with the executor as the image's user") {
  CHECK(message(read(R"({"runAsNonRoot": true})", ""), kRoot) ==
        kPod +
            ".securityContext.runAsNonRoot: Invalid value: true: container has runAsNonRoot and "
            "image will run as root (pod: \"probe-node-0-0\", container: node); locally the "
            "image's user is the executor's (uid 0): set runAsUser");
  CHECK(message(read(R"({"runAsNonRoot": true})", R"({"runAsUser": 0})"), kRoot) ==
        kContainer +
            ".securityContext.runAsUser: Invalid value: 0: container's runAsUser breaks non-root "
            "policy (pod: \"probe-node-0-0\", container: node)");
  // A non-root executor is a non-root image user; a non-zero runAsUser satisfies it.
  auto user = resolve_pod_user(read(R"({"runAsNonRoot": true})", ""), kUser, "p");
  REQUIRE(user.has_value());
  CHECK_FALSE(user->has_value());
  user = resolve_pod_user(read(R"({"runAsNonRoot": true, "runAsUser": 5})", ""), kRoot, "p");
  REQUIRE(user.has_value());
  REQUIRE(user->has_value());
  CHECK((*user)->uid == 5U);
}

TEST_CASE("pod user not as root: only what the executor already is") {
  auto user = resolve_pod_user(
      read(R"({"runAsUser": 1000, "runAsGroup": 1000, "supplementalGroups": [27]})", ""), kUser,
      "p");
  REQUIRE(user.has_value());
  CHECK_FALSE(user->has_value());
  const auto refused = resolve_pod_user(
      read(R"({"runAsUser": 65534, "fsGroup": 5})", R"({"runAsGroup": 4})"), kUser, "probe-0");
  REQUIRE_FALSE(refused.has_value());
  const auto& fields = refused.error().fields;
  REQUIRE(fields.size() == 3);
  CHECK(fields[0].to_string() ==
        kPod +
            ".securityContext.runAsUser: Invalid value: 65534: cannot be applied locally: the "
            "executor runs as uid 1000 (gid 1000) and only root can give a pod another user or "
            "group (pod: \"probe-0\", container: node)");
  CHECK(fields[1].path == kContainer + ".securityContext.runAsGroup");
  CHECK(fields[2].path == kPod + ".securityContext.fsGroup");
}
