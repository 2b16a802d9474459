// SPDX-License-Identifier: Apache-2.0
//
// What an MPI render pays for its SSH key:
// - generate_ssh_key_pair() (P-521 keygen + SEC 1 DER/PEM + OpenSSH public key line) next to a
//   bare OpenSSL EVP P-521 keygen (the floor), and the ratio of the two;
// - ssh_key_pair_from_private_key() (`--ssh-private-key`: decode, pairwise check, re-encode);
// - render_documents() of conformance case 18 (OpenMPI, separate launcher) with a fresh key,
//   and the same render when the Secret already exists (no key is made).
#include "trainer/codec.hpp"
#include "trainer/render.hpp"
#include "trainer/ssh.hpp"

#include <benchmark/benchmark.h>
#include <openssl/crypto.h>
#include <openssl/encoder.h>
#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

// Conformance case 18 (runtime + TrainJob), trimmed to the launcher and node jobs.
constexpr const char* kMpiDocuments = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: test-runtime
  namespace: default
spec:
  mlPolicy:
    numNodes: 1
    mpi:
      numProcPerNode: 1
      mpiImplementation: OpenMPI
      sshAuthMountPath: /root/.ssh
      runLauncherAsNode: false
  template:
    spec:
      replicatedJobs:
        - name: launcher
          replicas: 1
          template:
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: test:launcher
                      command: [mpirun]
                      args: [echo.sh]
        - name: node
          replicas: 1
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: test:runtime
                      command: [runtime]
                      resources:
                        requests:
                          cpu: '1'
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: test-job
  namespace: default
spec:
  runtimeRef:
    name: test-runtime
    kind: TrainingRuntime
  trainer:
    numNodes: 2
    numProcPerNode: 8
)";

const std::vector<boost::json::value>& documents() {
  static const auto docs = [] {
    auto parsed = trainer::parse_documents(kMpiDocuments);
    if (!parsed) {
      std::fprintf(stderr, "bench: %s\n", parsed.error().message.c_str());
      std::exit(1);
    }
    return *parsed;
  }();
  return docs;
}

void BM_SshKeyPairGenerate(benchmark::State& state) {
  for (auto _ : state) {
    auto pair = trainer::generate_ssh_key_pair();
    if (!pair) state.SkipWithError(pair.error().message.c_str());
    benchmark::DoNotOptimize(pair);
  }
}

// The floor: EVP P-521 key generation alone, no encoding.
void BM_OpenSslEvpKeygenP521(benchmark::State& state) {
  for (auto _ : state) {
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr);
    EVP_PKEY* key = nullptr;
    if (ctx == nullptr || EVP_PKEY_keygen_init(ctx) != 1 ||
        EVP_PKEY_CTX_set_group_name(ctx, "P-521") != 1 || EVP_PKEY_generate(ctx, &key) != 1) {
      state.SkipWithError("OpenSSL keygen failed");
    }
    benchmark::DoNotOptimize(key);
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(ctx);
  }
}

// Where the difference goes: OpenSSL 3.0's encoder setup + SEC 1 DER of an existing key.
void BM_OpenSslSec1Encode(benchmark::State& state) {
  EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-521");
  if (key == nullptr) {
    state.SkipWithError("OpenSSL keygen failed");
    return;
  }
  for (auto _ : state) {
    OSSL_ENCODER_CTX* ctx = OSSL_ENCODER_CTX_new_for_pkey(key, OSSL_KEYMGMT_SELECT_KEYPAIR, "DER",
                                                          "type-specific", nullptr);
    unsigned char* der = nullptr;
    std::size_t len = 0;
    if (ctx == nullptr || OSSL_ENCODER_to_data(ctx, &der, &len) != 1) {
      state.SkipWithError("OpenSSL encode failed");
    }
    benchmark::DoNotOptimize(der);
    OPENSSL_clear_free(der, len);
    OSSL_ENCODER_CTX_free(ctx);
  }
  EVP_PKEY_free(key);
}

void BM_SshKeyPairFromPrivateKey(benchmark::State& state) {
  const auto pair = trainer::generate_ssh_key_pair();
  if (!pair) {
    state.SkipWithError(pair.error().message.c_str());
    return;
  }
  for (auto _ : state) {
    auto derived = trainer::ssh_key_pair_from_private_key(pair->private_key_pem);
    if (!derived) state.SkipWithError(derived.error().message.c_str());
    benchmark::DoNotOptimize(derived);
  }
}

void render(benchmark::State& state, bool secret_exists) {
  trainer::RenderContext ctx;
  ctx.train_job_uid = "bench-uid";
  ctx.generate_ssh_key = [] { return trainer::generate_ssh_key_pair(); };
  ctx.lookup = [secret_exists](std::string_view, std::string_view kind, std::string_view,
                               std::string_view) -> std::optional<boost::json::value> {
    if (secret_exists && kind == "Secret") return boost::json::object{};
    return std::nullopt;
  };
  const auto& docs = documents();
  const std::size_t expected = secret_exists ? 3 : 4;  // snapshot, JobSet, [Secret,] hostfile
  for (auto _ : state) {
    auto out = trainer::render_documents(docs, ctx);
    if (!out) {
      state.SkipWithError(out.error().message.c_str());
      break;
    }
    if (out->objects.size() != expected) {
      state.SkipWithError("unexpected object count");
      break;
    }
    benchmark::DoNotOptimize(out);
  }
}

void BM_RenderMpiJobWithKeygen(benchmark::State& state) {
  render(state, false);
}
void BM_RenderMpiJobExistingSecret(benchmark::State& state) {
  render(state, true);
}

BENCHMARK(BM_SshKeyPairGenerate)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OpenSslEvpKeygenP521)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OpenSslSec1Encode)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SshKeyPairFromPrivateKey)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RenderMpiJobWithKeygen)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RenderMpiJobExistingSecret)->Unit(benchmark::kMicrosecond);

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& run : runs) {
      if (run.run_type == Run::RT_Iteration && run.iterations > 0 && !run.error_occurred) {
        ns_[run.benchmark_name()] = run.GetAdjustedRealTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void print_ratios() const {
    ratio("BM_SshKeyPairGenerate", "BM_OpenSslEvpKeygenP521",
          "generate_ssh_key_pair / bare EVP P-521 keygen");
    ratio("BM_RenderMpiJobWithKeygen", "BM_RenderMpiJobExistingSecret",
          "MPI render with keygen / without (Secret exists)");
  }

 private:
  void ratio(const char* a, const char* b, const char* what) const {
    const auto ia = ns_.find(a);
    const auto ib = ns_.find(b);
    if (ia == ns_.end() || ib == ns_.end() || ib->second <= 0) return;
    std::printf("%-50s %.3fx\n", what, ia->second / ib->second);
  }
  std::map<std::string, double> ns_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\n");
  reporter.print_ratios();
  benchmark::Shutdown();
  return 0;
}
