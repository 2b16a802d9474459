// SPDX-License-Identifier: Apache-2.0
//
// The heap a render takes grows with its output, not with numNodes (docs/yaml.md, "Size of a
// TrainJob"): this binary counts every allocation with the render benchmark's counter
// (bench/render/alloc_counter.cpp), so that a string per pod that no output lists shows up as
// megabytes of peak heap.
#include "alloc_counter.hpp"
#include "test_support.hpp"
#include "trainer/render.hpp"

#include <boost/json/serialize.hpp>

#include <string>

namespace {

std::string runtime(const std::string& ml_policy) {
  return R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: rt, namespace: default}
spec:
)" + ml_policy +
         R"(
  template:
    spec:
      replicatedJobs:
        - name: launcher
          template:
            spec:
              template:
                spec:
                  containers: [{name: node, image: img}]
        - name: node
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              template:
                spec:
                  containers: [{name: node, image: img}]
)";
}

constexpr const char* kJob = R"(---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: a-long-trainjob-name, namespace: default}
spec:
  runtimeRef: {name: rt, kind: TrainingRuntime}
  trainer: {numNodes: 99999}
)";

struct Measured {
  std::size_t peak = 0;    // peak heap above what was live before the render
  std::size_t output = 0;  // bytes of the rendered objects as JSON text
};

Measured measure(const std::string& text) {
  const auto documents = fwtest::yaml_docs(text);
  trainer::RenderContext ctx;
  ctx.train_job_uid = "uid";
  ctx.now = [] { return std::string("2026-01-01T00:00:00Z"); };
  ctx.generate_ssh_key = [] { return trainer::SshKeyPair{"key", "ecdsa-sha2-nistp521 AAAA\n"}; };
  bench::reset_peak();
  const std::size_t before = bench::alloc_snapshot().live;
  auto out = trainer::render_documents(documents, ctx);
  const std::size_t peak = bench::alloc_snapshot().peak - before;
  REQUIRE(out);
  std::size_t output = 0;
  for (const auto& o : out->objects) output += boost::json::serialize(o).size();
  return {peak, output};
}

}  // namespace

TEST_CASE("a TrainJob of the most pods renders in a heap that does not grow with numNodes") {
  // 1 launcher + 99999 nodes: the limit. Without an ML policy nothing lists the pods: the JobSet
  // is a few kilobytes, and so is the render's heap (a string per pod would be ~5 MB).
  const Measured plain = measure(runtime("") + kJob);
  CHECK(plain.output < 64 * 1024);
  CHECK(plain.peak < 2 * 1024 * 1024);
  // MPI lists every node in the hostfile: that output, and a small multiple of it, is the cost.
  const Measured mpi =
      measure(runtime("  mlPolicy: {numNodes: 1, mpi: {numProcPerNode: 1}}") + kJob);
  CHECK(mpi.output > 99999 * 20);
  CHECK(mpi.peak < 2 * 1024 * 1024 + 4 * mpi.output);
}
