// SPDX-License-Identifier: Apache-2.0
//
// trainer.hpp's cluster wrappers (trainer::abi::Client, CancelToken) over libtrainer.so, against
// the kube-apiserver of the CTest fixture `kube_apiserver` (TRAINER_TEST_APISERVER_DIR). The test
// plays the TrainJob controller by patching the status subresource with curl. Cases that need
// the server exit 77 (skipped) without TRAINER_KUBE_TEST_ENV.
#include "cpp_cluster_fixture.hpp"
#include "trainer.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using trainer::ErrorCode;
namespace abi = trainer::abi;

using cpp_cluster_fixture::kRuntime;
using cpp_cluster_fixture::Server;
using cpp_cluster_fixture::trainjob;

}  // namespace

TEST_CASE("trainer.hpp Client: a missing kubeconfig fails and releases the warning handler") {
  auto held = std::make_shared<int>(0);
  abi::ClientOptions options;
  options.kubeconfig = "/nonexistent/kubeconfig";
  options.on_warning = [held](std::string_view) {};
  auto client = abi::Client::create(options);
  REQUIRE_FALSE(client.has_value());
  CHECK(client.error().message.find("/nonexistent/kubeconfig") != std::string::npos);
  CHECK(client.error().http_status == 0);
  options.on_warning = nullptr;  // the library's copy is gone already
  CHECK(held.use_count() == 1);
}

TEST_CASE("trainer.hpp Client: apply, get, list, wait, watch, delete") {
  const Server server = Server::get();
  std::string ns;
  abi::Client client = server.client("cpp-crud", ns);

  abi::ApplyOptions apply;
  apply.field_manager = "cpp-test";
  auto applied = client.apply(std::string(kRuntime) + "---\n" + trainjob("job-a", 1), apply);
  REQUIRE(applied.has_value());
  REQUIRE(applied->size() == 2);
  CHECK((*applied)[0].ref == "trainingruntime.trainer.kubeflow.org/torch-rt");
  CHECK((*applied)[1].ref == "trainjob.trainer.kubeflow.org/job-a");

  auto job = client.get("trainjob", "", "job-a");
  REQUIRE(job.has_value());
  CHECK(job->find(R"("namespace":")" + ns + "\"") != std::string::npos);
  auto list = client.list("trainjobs", ns, abi::Format::kYaml);
  REQUIRE(list.has_value());
  CHECK(list->find("kind: TrainJobList") != std::string::npos);

  auto missing = client.get("trainjob", "", "missing");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == ErrorCode::kNotFound);
  CHECK(missing.error().http_status == 404);
  CHECK(missing.error().reason == "NotFound");

  auto invalid = client.apply(trainjob("job-bad", 0));
  REQUIRE_FALSE(invalid.has_value());
  CHECK(invalid.error().code == ErrorCode::kInvalid);
  REQUIRE_FALSE(invalid.error().fields.empty());
  CHECK(invalid.error().fields[0].path == "spec.trainer.numProcPerNode");

  // A watch sees the TrainJob, then the change the test makes as the controller.
  int events = 0;
  bool complete = false;
  auto watched =
      client.watch("", abi::WatchOptions{}, [&](std::string_view type, std::string_view object) {
        if (++events == 1) {
          CHECK(type == "ADDED");
          server.request(
              "PATCH",
              "/apis/trainer.kubeflow.org/v1alpha1/namespaces/" + ns + "/trainjobs/job-a/status",
              "application/merge-patch+json",
              R"({"status":{"conditions":[{"type":"Complete","status":"True",)"
              R"("reason":"JobsCompleted","message":"done",)"
              R"("lastTransitionTime":"2026-01-01T00:00:00Z"}]}})");
          return true;
        }
        complete = type == "MODIFIED" && object.find(R"("type":"Complete")") != std::string::npos;
        return !complete;
      });
  REQUIRE(watched.has_value());
  CHECK(complete);

  auto done = client.wait("", "job-a", "Complete", std::chrono::seconds(30));
  REQUIRE(done.has_value());
  CHECK(done->find("JobsCompleted") != std::string::npos);

  // An exception thrown by the callback comes back to the caller.
  CHECK_THROWS_WITH((void)client.watch("", {},
                                       [](std::string_view, std::string_view) -> bool {
                                         throw std::runtime_error("boom");
                                       }),
                    "boom");

  // Background: no garbage collector runs here to finish a foreground deletion.
  abi::DeleteOptions background;
  background.propagation = abi::Propagation::kBackground;
  REQUIRE(client.remove("trainjob", "", "job-a", background).has_value());
  auto gone = client.remove("trainjob", "", "job-a");
  REQUIRE_FALSE(gone.has_value());
  CHECK(gone.error().code == ErrorCode::kNotFound);
}

TEST_CASE("trainer.hpp CancelToken ends a wait from another thread") {
  const Server server = Server::get();
  std::string ns;
  abi::Client client = server.client("cpp-cancel", ns);
  REQUIRE(client.apply(std::string(kRuntime) + "---\n" + trainjob("job-c", 1)).has_value());

  auto token = abi::CancelToken::create();
  REQUIRE(token.has_value());
  abi::WaitOptions options;
  options.cancel = *token;
  std::thread canceller([copy = *token] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    copy.cancel();
  });
  const auto start = std::chrono::steady_clock::now();
  auto waited = client.wait("", "job-c", "Suspended", std::chrono::seconds(60), options);
  canceller.join();
  REQUIRE_FALSE(waited.has_value());
  CHECK(waited.error().code == ErrorCode::kCancelled);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  CHECK(token->cancelled());
}

TEST_CASE("trainer.hpp Client: max_response_bytes reaches the client (TRAINER_E_LIMIT)") {
  const Server server = Server::get();
  std::string ns;
  abi::Client admin = server.client("cpp-limit", ns);
  REQUIRE(admin.apply(std::string(kRuntime) + "---\n" + trainjob("job-a", 1)).has_value());

  abi::ClientOptions options;
  options.kubeconfig = server.dir + "/kubeconfig";
  options.namespace_ = ns;
  options.qps = -1;
  options.max_response_bytes = 1024;
  auto small = abi::Client::create(options);
  REQUIRE(small.has_value());
  auto job = small->get("trainjob", "", "job-a");
  REQUIRE_FALSE(job.has_value());
  CHECK(job.error().code == ErrorCode::kLimit);
  CHECK(job.error().message.find("1 KiB limit (ClientOptions::max_response_bytes)") !=
        std::string::npos);

  // The default (0) keeps 256 MiB.
  options.max_response_bytes = 0;
  auto plain = abi::Client::create(options);
  REQUIRE(plain.has_value());
  CHECK(plain->get("trainjob", "", "job-a").has_value());

  // on_log sees a watch's retry. The client's rate limiter (one request per 1000 s after a burst
  // of 10) is drained by gets (the first caches discovery) until one times out at the limiter
  // after the 200 ms request bound; then the watch's list times out the same way, the watch
  // logs its retry, and the handler cancels the watch.
  auto token = abi::CancelToken::create();
  REQUIRE(token.has_value());
  auto lines = std::make_shared<std::vector<std::string>>();
  options.qps = 0.001;
  options.burst = 10;
  options.request_timeout = std::chrono::milliseconds(200);
  options.on_log = [lines, cancel = *token](std::string_view line) {
    lines->emplace_back(line);  // the watch's thread: the only caller here
    cancel.cancel();
  };
  auto logging = abi::Client::create(options);
  REQUIRE(logging.has_value());
  REQUIRE(logging->get("trainjob", "", "job-a").has_value());
  bool drained = false;
  for (int i = 0; i < 20 && !drained; ++i) {
    auto got = logging->get("trainjob", "", "job-a");
    drained = !got.has_value() && got.error().code == ErrorCode::kTimeout;
  }
  REQUIRE(drained);
  CHECK(lines->empty());
  abi::WatchOptions watch;
  watch.cancel = *token;
  auto watched =
      logging->watch("", watch, [](std::string_view, std::string_view) { return false; });
  REQUIRE_FALSE(watched.has_value());
  CHECK(watched.error().code == ErrorCode::kCancelled);
  REQUIRE(lines->size() == 1);
  CHECK(lines->front().rfind("watch of trainjobs", 0) == 0);
  CHECK(lines->front().find("failed, retrying in ") != std::string::npos);
  options.on_log = nullptr;
  *logging = std::move(*plain);  // frees the logging client, which releases its handler
  CHECK(lines.use_count() == 1);
}
