// SPDX-License-Identifier: Apache-2.0
//
// End to end through the C ABI (trainer_run_start/wait/free): hostile volume fields in the
// rendered objects never make the executor write outside its run folder. Each case keeps a
// sentinel file and an empty folder beside the run folder and checks that both are untouched,
// that the inputs are refused before the run folder exists (field path in the message), or,
// for a symlink planted inside a run folder, that it is not followed. Cases that need mounts
// run pods in namespaces and are skipped (with a warning) when not root.
#include <catch2/catch.hpp>

#include "temp_dir.hpp"
#include "trainer.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

constexpr const char* kSentinel = "untouched\n";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

bool exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

std::size_t entries(const std::string& dir) {
  std::size_t n = 0;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) ++n;
    }
    closedir(d);
  }
  return n;
}

// A scratch folder: `sentinel` (a file), `outside/` (an empty folder) and the run folder `run`
// (not created).
struct Scratch {
  const trainer::testing::TempDir dir{"trainer-paths"};
  const std::string base = dir.path();
  Scratch() {
    std::ofstream(base + "/sentinel") << kSentinel;
    REQUIRE(mkdir((base + "/outside").c_str(), 0755) == 0);
  }
  std::string run() const { return base + "/run"; }
  void check_untouched() const {
    CHECK(read_text(base + "/sentinel") == kSentinel);
    CHECK(entries(base + "/outside") == 0);
    // Nothing but the scratch files and the run folder appeared beside them.
    CHECK(entries(base) <= 3);
  }
};

struct Outcome {
  trainer_status start = TRAINER_OK;
  std::string message;
  int32_t phase = -1;
};

// A rendered JobSet with one pod running `/bin/true`, `volumes` and `mounts` spliced into the pod
// spec and its container (YAML flow sequences), `extra` prepended as more objects.
std::string job(const std::string& volumes, const std::string& mounts,
                const std::string& extra = "") {
  return extra +
         "apiVersion: jobset.x-k8s.io/v1alpha2\n"
         "kind: JobSet\n"
         "metadata: {name: paths, namespace: default}\n"
         "spec:\n"
         "  replicatedJobs:\n"
         "    - name: node\n"
         "      replicas: 1\n"
         "      template:\n"
         "        spec:\n"
         "          completions: 1\n"
         "          backoffLimit: 0\n"
         "          template:\n"
         "            spec:\n"
         "              terminationGracePeriodSeconds: 1\n"
         "              containers:\n"
         "                - name: node\n"
         "                  command: [/bin/true]\n"
         "                  volumeMounts: " +
         mounts +
         "\n"
         "              volumes: " +
         volumes + "\n";
}

Outcome run(const std::string& objects, const std::string& run_dir, int32_t isolation) {
  trainer_run_options options = TRAINER_RUN_OPTIONS_INIT;
  options.run_dir = run_dir.c_str();
  options.isolation = isolation;
  trainer_run* handle = nullptr;
  trainer_error* err = nullptr;
  Outcome out;
  out.start = trainer_run_start(objects.data(), objects.size(), &options, &handle, &err);
  if (out.start != TRAINER_OK) {
    out.message = err != nullptr ? trainer_error_message(err) : "";
    trainer_error_free(err);
    return out;
  }
  if (trainer_run_wait(handle, 60000, &out.phase, &err) != TRAINER_OK) {
    out.message = err != nullptr ? trainer_error_message(err) : "";
    trainer_error_free(err);
  }
  trainer_run_free(handle);
  return out;
}

bool root() {
  return geteuid() == 0;
}

const std::string kPod = "spec.replicatedJobs[0].template.spec.template.spec";

const std::string kConfigMap =
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: default}\n"
    "data: {greeting: hello}\n---\n";

}  // namespace

TEST_CASE("an item path climbing out of its volume is refused before anything is written") {
  Scratch s;
  const auto out = run(job("[{name: cfg, configMap: {name: cfg, items: [{key: greeting, path: "
                           "../../../../../sentinel}]}}]",
                           "[]", kConfigMap),
                       s.run(), TRAINER_ISOLATION_HOST);
  CHECK(out.start == TRAINER_E_INVALID);
  CHECK_THAT(out.message,
             Catch::Contains(kPod + ".volumes[0].configMap.items[0].path: Invalid value: "
                                    "\"../../../../../sentinel\": must not contain '..'"));
  CHECK_FALSE(exists(s.run()));
  s.check_untouched();
}

TEST_CASE("an absolute item path is refused before the run folder is created") {
  Scratch s;
  const std::string target = s.base + "/sentinel";
  const auto out = run(
      job("[{name: cfg, configMap: {name: cfg, items: [{key: greeting, path: '" + target + "'}]}}]",
          "[]", kConfigMap),
      s.run(), TRAINER_ISOLATION_HOST);
  CHECK(out.start == TRAINER_E_INVALID);
  CHECK_THAT(out.message,
             Catch::Contains(kPod + ".volumes[0].configMap.items[0].path: Invalid value: \"" +
                             target + "\": must be a relative path"));
  CHECK_FALSE(exists(s.run()));
  s.check_untouched();
}

TEST_CASE("a ConfigMap key that is not a file name is refused") {
  Scratch s;
  const std::string cm =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: default}\n"
      "data: {'../../../../../sentinel': owned}\n---\n";
  const auto out =
      run(job("[{name: cfg, configMap: {name: cfg}}]", "[]", cm), s.run(), TRAINER_ISOLATION_HOST);
  CHECK(out.start == TRAINER_E_INVALID);
  CHECK_THAT(out.message, Catch::Contains("ConfigMap(cfg).data[../../../../../sentinel]: Invalid "
                                          "value: \"../../../../../sentinel\""));
  CHECK_FALSE(exists(s.run()));
  s.check_untouched();
}

TEST_CASE("a volume name with a slash is refused") {
  Scratch s;
  const auto out = run(job("[{name: ../../../../outside/x, emptyDir: {}}]", "[]"), s.run(),
                       TRAINER_ISOLATION_HOST);
  CHECK(out.start == TRAINER_E_INVALID);
  CHECK_THAT(out.message, Catch::Contains(kPod + ".volumes[0].name: Invalid value: "
                                                 "\"../../../../outside/x\": a lowercase RFC "
                                                 "1123 label must consist of"));
  CHECK_FALSE(exists(s.run()));
  s.check_untouched();
}

TEST_CASE("a claim name that is not a DNS-1123 subdomain is refused") {
  Scratch s;
  const auto out = run(job("[{name: data, persistentVolumeClaim: {claimName: ../../outside/c}}]",
                           "[{name: data, mountPath: /data}]"),
                       s.run(), TRAINER_ISOLATION_HOST);
  CHECK(out.start == TRAINER_E_INVALID);
  CHECK_THAT(out.message, Catch::Contains(kPod + ".volumes[0].persistentVolumeClaim.claimName: "
                                                 "Invalid value: \"../../outside/c\""));
  CHECK_FALSE(exists(s.run()));
  s.check_untouched();
}

TEST_CASE("a subPath climbing out of its volume is refused") {
  if (!root()) {
    WARN("skipped: mounts need root (namespaces)");
    return;
  }
  Scratch s;
  const auto out =
      run(job("[{name: scratch, emptyDir: {}}]",
              "[{name: scratch, mountPath: /mnt/x, subPath: ../../../../../outside/y}]"),
          s.run(), TRAINER_ISOLATION_NAMESPACES);
  CHECK(out.start == TRAINER_E_INVALID);
  CHECK_THAT(out.message, Catch::Contains(kPod + ".containers[0].volumeMounts[0].subPath: "
                                                 "Invalid value: \"../../../../../outside/y\": "
                                                 "must not contain '..'"));
  CHECK_FALSE(exists(s.run()));
  s.check_untouched();
}

TEST_CASE("a relative mountPath is refused, not created under the working directory") {
  if (!root()) {
    WARN("skipped: mounts need root (namespaces)");
    return;
  }
  Scratch s;
  char cwd[4096];
  REQUIRE(getcwd(cwd, sizeof cwd) != nullptr);
  REQUIRE(chdir((s.base + "/outside").c_str()) == 0);
  const auto out =
      run(job("[{name: scratch, emptyDir: {}}]", "[{name: scratch, mountPath: rel/dir}]"), s.run(),
          TRAINER_ISOLATION_NAMESPACES);
  REQUIRE(chdir(cwd) == 0);
  CHECK(out.start == TRAINER_E_INVALID);
  CHECK_THAT(out.message, Catch::Contains(kPod + ".containers[0].volumeMounts[0].mountPath: "
                                                 "Invalid value: \"rel/dir\": must be an "
                                                 "absolute path"));
  CHECK_FALSE(exists(s.run()));
  s.check_untouched();
}

TEST_CASE("a mount of an undeclared volume is refused") {
  Scratch s;
  const auto out =
      run(job("[]", "[{name: ghost, mountPath: /ghost}]"), s.run(), TRAINER_ISOLATION_HOST);
  CHECK(out.start == TRAINER_E_INVALID);
  CHECK_THAT(out.message, Catch::Contains(kPod + ".containers[0].volumeMounts[0].name: Not "
                                                 "found: \"ghost\""));
  CHECK_FALSE(exists(s.run()));
  s.check_untouched();
}

TEST_CASE("a file mode above 0777 is refused") {
  Scratch s;
  const auto out =
      run(job("[{name: cfg, configMap: {name: cfg, defaultMode: 2541}}]", "[]", kConfigMap),
          s.run(), TRAINER_ISOLATION_HOST);
  CHECK(out.start == TRAINER_E_INVALID);
  CHECK_THAT(out.message,
             Catch::Contains(kPod + ".volumes[0].configMap.defaultMode: Invalid value: 2541: must "
                                    "be a number between 0 and 0777 (octal), both inclusive"));
  CHECK_FALSE(exists(s.run()));
  s.check_untouched();
}

TEST_CASE("a symlink planted in the run folder is not followed") {
  Scratch s;
  // A run folder prepared by someone else (no state.json, so it is accepted) whose pod volume
  // folder points outside.
  const std::string volumes = s.run() + "/pods/paths-node-0-0-0/volumes";
  REQUIRE(std::system(("mkdir -p '" + volumes + "'").c_str()) == 0);
  REQUIRE(symlink((s.base + "/outside").c_str(), (volumes + "/cfg").c_str()) == 0);
  const auto out = run(job("[{name: cfg, configMap: {name: cfg}}]", "[]", kConfigMap), s.run(),
                       TRAINER_ISOLATION_HOST);
  // The pod cannot start: its volume folder is a symlink.
  CHECK(out.start == TRAINER_OK);
  CHECK(out.phase == TRAINER_RUN_FAILED);
  CHECK(entries(s.base + "/outside") == 0);
  CHECK(read_text(s.base + "/sentinel") == kSentinel);
}

TEST_CASE("a symlinked claims folder is not followed") {
  Scratch s;
  REQUIRE(mkdir(s.run().c_str(), 0755) == 0);
  REQUIRE(symlink((s.base + "/outside").c_str(), (s.run() + "/claims").c_str()) == 0);
  const auto out = run(job("[{name: data, persistentVolumeClaim: {claimName: data}}]",
                           "[{name: data, mountPath: /data}]"),
                       s.run(), TRAINER_ISOLATION_HOST);
  CHECK(out.start != TRAINER_OK);
  CHECK_THAT(out.message, Catch::Contains("claims"));
  CHECK(entries(s.base + "/outside") == 0);
  CHECK(read_text(s.base + "/sentinel") == kSentinel);
}

TEST_CASE("Secret files are written 0600 and the run folder 0700, whatever the umask") {
  Scratch s;
  const std::string secret =
      "apiVersion: v1\nkind: Secret\nmetadata: {name: ssh, namespace: default}\n"
      "stringData: {ssh-privatekey: PRIVATE, ssh-publickey: PUBLIC}\n---\n";
  // As the MPI plugin renders it: the private key 0640, the public key 0644.
  const mode_t old = umask(0);
  const auto out = run(job("[{name: ssh, secret: {secretName: ssh, defaultMode: 256, items: "
                           "[{key: ssh-privatekey, path: id_rsa, mode: 416}, {key: ssh-publickey, "
                           "path: id_rsa.pub, mode: 420}]}}]",
                           "[]", secret),
                       s.run(), TRAINER_ISOLATION_HOST);
  umask(old);
  CHECK(out.start == TRAINER_OK);
  CHECK(out.phase == TRAINER_RUN_COMPLETE);
  const std::string vol = s.run() + "/pods/paths-node-0-0-0/volumes/ssh";
  struct stat st {};
  REQUIRE(stat((vol + "/id_rsa").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  REQUIRE(stat((vol + "/id_rsa.pub").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(read_text(vol + "/id_rsa") == "PRIVATE");
  REQUIRE(stat(s.run().c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0700);
  s.check_untouched();
}
