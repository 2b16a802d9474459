// SPDX-License-Identifier: Apache-2.0
//
// The local executor's path safety (docs/local.md, "Path safety"): the API server's path rules
// with their texts, the run folder primitives that never follow a symbolic link nor write through
// an existing link, and make_plan refusing every host-path field that breaks a rule.
#include <catch2/catch.hpp>

#include "local/path_rules.hpp"
#include "local/plan.hpp"
#include "local/run_folder.hpp"
#include "local/volumes.hpp"
#include "temp_dir.hpp"

#include <boost/json.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

namespace json = boost::json;
using namespace trainer::local::detail;
using trainer::FieldError;
using trainer::FieldErrorType;
using trainer::testing::TempDir;

std::vector<std::string> texts(const std::vector<FieldError>& errs) {
  std::vector<std::string> out;
  for (const auto& e : errs) out.push_back(e.to_string());
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

}  // namespace

TEST_CASE("validate_local_descending_path has Kubernetes' rules and texts", "[local]") {
  const std::string p = "x.subPath";
  for (const char* ok : {"a", "a/b", "./a", "a/./b", "a..b", "..a/b/c", "a/..b", "a/b.."}) {
    INFO(ok);
    CHECK(validate_local_descending_path(p, ok).empty());
  }
  CHECK(texts(validate_local_descending_path(p, "../x")) ==
        std::vector<std::string>{"x.subPath: Invalid value: \"../x\": must not contain '..'"});
  CHECK(texts(validate_local_descending_path(p, "a/../../b")) ==
        std::vector<std::string>{"x.subPath: Invalid value: \"a/../../b\": must not contain '..'"});
  CHECK(texts(validate_local_descending_path(p, "a/..")) ==
        std::vector<std::string>{"x.subPath: Invalid value: \"a/..\": must not contain '..'"});
  CHECK(texts(validate_local_descending_path(p, "/etc")) ==
        std::vector<std::string>{"x.subPath: Invalid value: \"/etc\": must be a relative path"});
  CHECK(texts(validate_local_descending_path(p, "/../etc")) ==
        std::vector<std::string>{"x.subPath: Invalid value: \"/../etc\": must be a relative path",
                                 "x.subPath: Invalid value: \"/../etc\": must not contain '..'"});
  CHECK(validate_path_no_backsteps(p, "/abs/ok").empty());
}

TEST_CASE("validate_local_non_reserved_path refuses names starting with '..'", "[local]") {
  const std::string p = "v.items[0].path";
  CHECK(validate_local_non_reserved_path(p, "id_rsa").empty());
  CHECK(validate_local_non_reserved_path(p, "a/..data").empty());
  CHECK(texts(validate_local_non_reserved_path(p, "..data")) ==
        std::vector<std::string>{
            "v.items[0].path: Invalid value: \"..data\": must not start with '..'"});
  // `../x` is reported once, by the element check.
  CHECK(texts(validate_local_non_reserved_path(p, "../../etc/x")) ==
        std::vector<std::string>{
            "v.items[0].path: Invalid value: \"../../etc/x\": must not contain '..'"});
  CHECK(
      texts(validate_local_non_reserved_path(p, "..")) ==
      std::vector<std::string>{"v.items[0].path: Invalid value: \"..\": must not contain '..'",
                               "v.items[0].path: Invalid value: \"..\": must not start with '..'"});
}

TEST_CASE("validate_file_mode and validate_mount_path", "[local]") {
  CHECK(validate_file_mode("m", 0).empty());
  CHECK(validate_file_mode("m", 0777).empty());
  CHECK(texts(validate_file_mode("m", 01000)) ==
        std::vector<std::string>{"m: Invalid value: 512: must be a number between 0 and 0777 "
                                 "(octal), both inclusive"});
  CHECK(validate_file_mode("m", -1).size() == 1);
  CHECK(validate_file_mode("m", 04755).size() == 1);  // no setuid files on the host

  CHECK(validate_mount_path("p", "/data").empty());
  CHECK(texts(validate_mount_path("p", "data")) ==
        std::vector<std::string>{"p: Invalid value: \"data\": must be an absolute path"});
  CHECK(texts(validate_mount_path("p", "")) == std::vector<std::string>{"p: Required value"});
}

TEST_CASE("open_below creates folders and never follows a symbolic link", "[local]") {
  const TempDir t("trainer-safety");
  auto root = open_root(t.path() + "/run");
  REQUIRE(root);
  auto made = open_below(root->get(), "a/./b//c", true, "run");
  REQUIRE(made);
  struct stat st {};
  CHECK(stat((t.path() + "/run/a/b/c").c_str(), &st) == 0);
  CHECK(S_ISDIR(st.st_mode));

  REQUIRE(mkdir((t.path() + "/outside").c_str(), 0755) == 0);
  REQUIRE(symlink((t.path() + "/outside").c_str(), (t.path() + "/run/link").c_str()) == 0);
  for (const char* rel : {"link", "link/x", "a/../link"}) {
    INFO(rel);
    auto through = open_below(root->get(), rel, true, "run");
    REQUIRE_FALSE(through);
    CHECK(through.error().code == trainer::ErrorCode::kIo);
  }
  auto refused = open_below(root->get(), "link/x", true, "run");
  CHECK_THAT(refused.error().message,
             Catch::Contains("run/link") && Catch::Contains("does not follow"));
  CHECK(rmdir((t.path() + "/outside").c_str()) == 0);  // still empty
  // Without create, a missing folder is an error, not created.
  CHECK_FALSE(open_below(root->get(), "missing", false, "run"));
  CHECK(stat((t.path() + "/run/missing").c_str(), &st) != 0);
}

TEST_CASE("open_root gives its mode to the folder itself, 0755 to new parents", "[local]") {
  const TempDir t("trainer-safety");
  const mode_t old = umask(0);
  auto root = open_root(t.path() + "/runs/one", 0700);
  umask(old);
  REQUIRE(root);
  struct stat st {};
  REQUIRE(stat((t.path() + "/runs").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0755);
  REQUIRE(fstat(root->get(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0700);
}

TEST_CASE("open_node_below finds files and folders, creates a missing folder", "[local]") {
  const TempDir t("trainer-safety");
  auto root = open_root(t.path());
  REQUIRE(root);
  REQUIRE(write_file_below(root->get(), "d/file", "x", 0644, "t"));
  auto file = open_node_below(root->get(), "d/file", "t");
  REQUIRE(file);
  CHECK_FALSE(file->is_dir);
  auto dir = open_node_below(root->get(), "d/new/sub", "t");
  REQUIRE(dir);
  CHECK(dir->is_dir);
  REQUIRE(symlink("/etc", (t.path() + "/d/etc").c_str()) == 0);
  CHECK_FALSE(open_node_below(root->get(), "d/etc", "t"));
  CHECK_FALSE(open_node_below(root->get(), "d/etc/passwd", "t"));
}

TEST_CASE("write_file_below replaces links instead of writing through them", "[local]") {
  const TempDir t("trainer-safety");
  const std::string sentinel = t.path() + "/sentinel";
  std::ofstream(sentinel) << "untouched";
  auto root = open_root(t.path() + "/run");
  REQUIRE(root);
  // A symbolic link and a hard link to the sentinel, planted where files will be written.
  REQUIRE(symlink(sentinel.c_str(), (t.path() + "/run/soft").c_str()) == 0);
  REQUIRE(link(sentinel.c_str(), (t.path() + "/run/hard").c_str()) == 0);
  const mode_t old = umask(0);
  CHECK(write_file_below(root->get(), "soft", "new", 0644, "run"));
  CHECK(write_file_below(root->get(), "hard", "new", 0600, "run"));
  umask(old);
  CHECK(read_text(sentinel) == "untouched");
  CHECK(read_text(t.path() + "/run/hard") == "new");
  struct stat st {};
  REQUIRE(lstat((t.path() + "/run/soft").c_str(), &st) == 0);
  CHECK(S_ISREG(st.st_mode));
  CHECK((st.st_mode & 07777) == 0644);
  REQUIRE(stat((t.path() + "/run/hard").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  // Not a file name.
  CHECK_FALSE(write_file_below(root->get(), "dir/", "x", 0644, "run"));
  CHECK_FALSE(write_file_below(root->get(), "..", "x", 0644, "run"));
}

TEST_CASE("Secret volume files are owner-only on the host", "[local]") {
  Volume cm;
  Volume secret;
  secret.secret = true;
  CHECK(host_file_mode(cm, 0644) == 0644);
  CHECK(host_file_mode(cm, 0755) == 0755);
  CHECK(host_file_mode(secret, 0640) == 0600);
  CHECK(host_file_mode(secret, 0644) == 0600);
  CHECK(host_file_mode(secret, 0400) == 0400);
  CHECK(host_file_mode(secret, 0755) == 0700);
}

namespace {

// A JobSet with one pod whose spec gets `volumes` and whose container gets `mounts`.
std::vector<json::value> objects(const json::value& volumes, const json::value& mounts,
                                 const std::string& jobset = "job",
                                 const std::string& rjob = "node") {
  json::object container;
  container["name"] = "c";
  container["command"] = json::array{"/bin/true"};
  container["volumeMounts"] = mounts;
  json::object pod_spec;
  pod_spec["containers"] = json::array{container};
  pod_spec["volumes"] = volumes;
  json::object pod_template;
  pod_template["spec"] = pod_spec;
  json::object job_spec;
  job_spec["template"] = pod_template;
  json::object job_template;
  job_template["spec"] = job_spec;
  json::object rj;
  rj["name"] = rjob;
  rj["template"] = job_template;
  json::object spec;
  spec["replicatedJobs"] = json::array{rj};
  json::object meta;
  meta["name"] = jobset;
  json::object js;
  js["kind"] = "JobSet";
  js["metadata"] = meta;
  js["spec"] = spec;
  std::vector<json::value> out;
  out.push_back(json::parse(R"({"kind":"ConfigMap","metadata":{"name":"cfg"},
                                "data":{"greeting":"hello"}})"));
  out.push_back(json::parse(R"({"kind":"Secret","metadata":{"name":"ssh"},
                                "stringData":{"ssh-privatekey":"KEY"}})"));
  out.emplace_back(std::move(js));
  return out;
}

std::vector<std::string> plan_errors(const std::vector<json::value>& objs) {
  auto plan = make_plan(objs);
  if (plan) return {};
  return texts(plan.error().fields);
}

const std::string kPod = "JobSet.spec.replicatedJobs[0].template.spec.template.spec";

}  // namespace

TEST_CASE("make_plan accepts ordinary volumes", "[local]") {
  auto plan =
      make_plan(objects(json::parse(R"([{"name":"scratch","emptyDir":{}},
                      {"name":"data","persistentVolumeClaim":{"claimName":"my.claim-1"}},
                      {"name":"cfg","configMap":{"name":"cfg","defaultMode":292,
                         "items":[{"key":"greeting","path":"conf/./greeting.txt","mode":384}]}},
                      {"name":"ssh","secret":{"secretName":"ssh","defaultMode":256}}])"),
                        json::parse(R"j([{"name":"scratch","mountPath":"/scratch","subPath":"a/b"},
                      {"name":"data","mountPath":"/data","subPathExpr":"$(POD_NAME)"},
                      {"name":"cfg","mountPath":"/etc/cfg"}])j")));
  REQUIRE(plan);
  const auto& vols = plan->pods[0].volumes;
  REQUIRE(vols.size() == 4);
  CHECK(vols[2].files[0].path == "conf/./greeting.txt");
  CHECK(vols[2].files[0].mode == 0600);
  CHECK_FALSE(vols[2].secret);
  CHECK(vols[3].secret);
  CHECK(vols[3].files[0].mode == 0400);
  CHECK(plan->pods[0].container.mounts[1].sub_path_expr == "$(POD_NAME)");
}

TEST_CASE("make_plan refuses every host-path field that breaks the API server's rules", "[local]") {
  const auto none = json::array{};
  SECTION("volume names") {
    CHECK(plan_errors(objects(json::parse(R"([{"name":"../x","emptyDir":{}},
                                               {"name":"","emptyDir":{}},
                                               {"name":"ok","emptyDir":{}},
                                               {"name":"ok","emptyDir":{}}])"),
                              none)) ==
          std::vector<std::string>{
              kPod + ".volumes[0].name: Invalid value: \"../x\": a lowercase RFC 1123 label must "
                     "consist of lower case alphanumeric characters or '-', and must start and "
                     "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
                     "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
              kPod + ".volumes[1].name: Required value",
              kPod + ".volumes[3].name: Duplicate value: \"ok\""});
  }
  SECTION("claim names") {
    auto errs = plan_errors(
        objects(json::parse(R"([{"name":"a","persistentVolumeClaim":{"claimName":"x/../../etc"}},
                        {"name":"b","persistentVolumeClaim":{}}])"),
                none));
    REQUIRE(errs.size() == 2);
    CHECK_THAT(errs[0], Catch::StartsWith(kPod + ".volumes[0].persistentVolumeClaim.claimName: "
                                                 "Invalid value: \"x/../../etc\": a lowercase "
                                                 "RFC 1123 subdomain"));
    CHECK(errs[1] == kPod + ".volumes[1].persistentVolumeClaim.claimName: Required value");
  }
  SECTION("ConfigMap and Secret items") {
    CHECK(plan_errors(objects(json::parse(R"([{"name":"cfg","configMap":{"name":"cfg","items":[
                                 {"key":"greeting","path":"../../etc/x"},
                                 {"key":"greeting","path":"/etc/x","mode":4095},
                                 {"key":"","path":""},
                                 {"key":"greeting","path":"..data"}]}},
                              {"name":"ssh","secret":{"secretName":"ssh","defaultMode":-1,
                                 "items":[{"key":"ssh-privatekey","path":"a/../../id"}]}}])"),
                              none)) ==
          std::vector<std::string>{
              kPod + ".volumes[0].configMap.items[0].path: Invalid value: \"../../etc/x\": must "
                     "not contain '..'",
              kPod + ".volumes[0].configMap.items[1].path: Invalid value: \"/etc/x\": must be a "
                     "relative path",
              kPod + ".volumes[0].configMap.items[1].mode: Invalid value: 4095: must be a number "
                     "between 0 and 0777 (octal), both inclusive",
              kPod + ".volumes[0].configMap.items[2].key: Required value",
              kPod + ".volumes[0].configMap.items[2].path: Required value",
              kPod + ".volumes[0].configMap.items[3].path: Invalid value: \"..data\": must not "
                     "start with '..'",
              kPod + ".volumes[1].secret.defaultMode: Invalid value: -1: must be a number "
                     "between 0 and 0777 (octal), both inclusive",
              kPod + ".volumes[1].secret.items[0].path: Invalid value: \"a/../../id\": must not "
                     "contain '..'"});
  }
  SECTION("hostPath") {
    CHECK(plan_errors(objects(json::parse(R"([{"name":"h","hostPath":{"path":"/srv/../etc"}},
                                               {"name":"i","hostPath":{"path":""}}])"),
                              none)) ==
          std::vector<std::string>{
              kPod + ".volumes[0].hostPath.path: Invalid value: \"/srv/../etc\": must not "
                     "contain '..'",
              kPod + ".volumes[1].hostPath.path: Required value"});
  }
  SECTION("volume mounts") {
    const std::string c = kPod + ".containers[0].volumeMounts";
    CHECK(plan_errors(objects(json::parse(R"([{"name":"v","emptyDir":{}}])"),
                              json::parse(R"([{"name":"v","mountPath":"rel"},
                                              {"name":"v","mountPath":"/a","subPath":"../.."},
                                              {"name":"v","mountPath":"/a","subPath":"/abs"},
                                              {"name":"ghost","mountPath":"/g"},
                                              {"name":"v","mountPath":"/e",
                                               "subPathExpr":"$(X)/../..","subPath":"s"},
                                              {"name":"","mountPath":""}])"))) ==
          std::vector<std::string>{
              c + "[0].mountPath: Invalid value: \"rel\": must be an absolute path",
              c + "[1].subPath: Invalid value: \"../..\": must not contain '..'",
              c + "[2].mountPath: Invalid value: \"/a\": must be unique",
              c + "[2].subPath: Invalid value: \"/abs\": must be a relative path",
              c + "[4].subPathExpr: Invalid value: \"$(X)/../..\": subPathExpr and subPath are "
                  "mutually exclusive",
              c + "[4].subPathExpr: Invalid value: \"$(X)/../..\": must not contain '..'",
              c + "[5].name: Required value", c + "[5].mountPath: Required value",
              c + "[3].name: Not found: \"ghost\""});
  }
  SECTION("volume types the local executor does not provide") {
    auto errs = plan_errors(
        objects(json::parse(R"([{"name":"p","projected":{"sources":[{"downwardAPI":{}}]}},
                                {"name":"d","downwardAPI":{"items":[]}}])"),
                none));
    REQUIRE(errs.size() == 2);
    CHECK_THAT(errs[0], Catch::StartsWith(kPod + ".volumes[0].projected.sources[0]: Unsupported "
                                                 "value: \"p\": supported values: \"configMap\", "
                                                 "\"secret\", \"serviceAccountToken\""));
    CHECK_THAT(errs[1], Catch::StartsWith(kPod + ".volumes[1]: Unsupported value: \"d\""));
  }
  SECTION("data keys") {
    auto objs = objects(none, none);
    objs[0].as_object()["data"].as_object()["../../x"] = "owned";
    objs[1].as_object()["stringData"].as_object()["a/b"] = "owned";
    auto errs = plan_errors(objs);
    REQUIRE(errs.size() == 3);
    CHECK_THAT(errs[0], Catch::StartsWith("ConfigMap(cfg).data[../../x]: Invalid value: "
                                          "\"../../x\": a valid config key must consist"));
    CHECK(errs[1] ==
          "ConfigMap(cfg).data[../../x]: Invalid value: \"../../x\": must not start "
          "with '..'");
    CHECK_THAT(errs[2], Catch::StartsWith("Secret(ssh).data[a/b]: Invalid value: \"a/b\""));
  }
  SECTION("namespace and subdomain, which the hosts file carries") {
    auto objs = objects(none, none);
    objs[2].as_object()["metadata"].as_object()["namespace"] = "a\n127.0.0.1 example.com";
    objs[2].as_object()["spec"].as_object()["network"] = {{"subdomain", "x y"}};
    auto errs = plan_errors(objs);
    REQUIRE(errs.size() == 2);
    CHECK_THAT(errs[0], Catch::StartsWith("JobSet.metadata.namespace: Invalid value: "));
    CHECK_THAT(errs[1], Catch::StartsWith("JobSet.spec.network.subdomain: Invalid value: \"x y\""));
  }
  SECTION("JobSet and replicated job names") {
    auto errs = plan_errors(objects(none, none, "../job", "a/b"));
    REQUIRE(errs.size() == 2);
    CHECK_THAT(errs[0], Catch::StartsWith("JobSet.metadata.name: Invalid value: \"../job\""));
    CHECK_THAT(errs[1],
               Catch::StartsWith("JobSet.spec.replicatedJobs[0].name: Invalid value: \"a/b\""));
  }
}
