// SPDX-License-Identifier: Apache-2.0
// A small data-parallel trainer: logistic regression on a deterministic synthetic data set.
// Each rank takes a contiguous shard of the samples, computes the mean gradient of its shard,
// and the gradients are averaged across ranks with all_reduce(kAvg); every rank then applies
// the same update, so all ranks hold identical weights. Rank 0 prints `epoch=N loss=X`
// (Katib's metric format) and writes the final weights, one per line.
//
//   mpirun -np 4 ddp_logreg --out weights.txt [--epochs 40] [--compare ref.txt --tolerance 1e-5]
// Started without mpirun/torchrun variables it trains alone (the single-process reference).
#include "trainer/collectives.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace tc = trainer::collectives;

namespace {

constexpr std::size_t kSamples = 8192;  // divisible by 1, 2 and 4 ranks
constexpr std::size_t kFeatures = 16;
constexpr std::size_t kParams = kFeatures + 1;  // weights + bias

// splitmix64: sample i's features depend only on i, never on the sharding.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27U)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31U);
}

float uniform(std::uint64_t key) {  // in [-1, 1)
  return static_cast<float>(static_cast<double>(mix(key) >> 11U) * 0x1.0p-53 * 2.0 - 1.0);
}

struct Sample {
  float x[kFeatures];
  float y;
};

Sample sample(std::size_t i) {
  Sample s{};
  float z = 0.25F;
  for (std::size_t f = 0; f < kFeatures; ++f) {
    s.x[f] = uniform(i * kFeatures + f);
    const float true_w = static_cast<float>(f % 5) - 2.0F;  // -2..2
    z += true_w * s.x[f];
  }
  z += 0.5F * uniform(0xABCDEF00ULL + i);  // label noise
  s.y = z > 0 ? 1.0F : 0.0F;
  return s;
}

struct Options {
  int epochs = 40;
  float lr = 0.5F;
  std::string out;
  std::string compare;
  double tolerance = 1e-5;
};

std::optional<Options> parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--epochs")
      o.epochs = std::atoi(v);
    else if (k == "--lr")
      o.lr = static_cast<float>(std::atof(v));
    else if (k == "--out")
      o.out = v;
    else if (k == "--compare")
      o.compare = v;
    else if (k == "--tolerance")
      o.tolerance = std::atof(v);
    else
      return std::nullopt;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const auto opts = parse(argc, argv);
  if (!opts) {
    std::fprintf(stderr,
                 "usage: ddp_logreg [--epochs N] [--lr X] [--out FILE] [--compare FILE "
                 "--tolerance T]\n");
    return 2;
  }
  // Distributed when the environment says so; alone otherwise.
  std::optional<tc::Communicator> comm;
  if (tc::plan_from_env(tc::process_env())) {
    auto made = tc::Communicator::init_from_env();
    if (!made) {
      std::fprintf(stderr, "init_from_env: %s\n", made.error().message.c_str());
      return 1;
    }
    comm.emplace(std::move(*made));
  }
  const int rank = comm ? comm->rank() : 0;
  const int size = comm ? comm->size() : 1;
  if (kSamples % static_cast<std::size_t>(size) != 0) {
    std::fprintf(stderr, "%zu samples do not split evenly over %d ranks\n", kSamples, size);
    return 1;
  }
  const std::size_t shard = kSamples / static_cast<std::size_t>(size);
  std::vector<Sample> data;
  data.reserve(shard);
  for (std::size_t i = 0; i < shard; ++i)
    data.push_back(sample(static_cast<std::size_t>(rank) * shard + i));

  std::vector<float> w(kParams, 0.0F);
  std::vector<float> msg(kParams + 1);  // mean gradient of this shard, then its mean loss
  for (int epoch = 1; epoch <= opts->epochs; ++epoch) {
    std::vector<double> grad(kParams, 0.0);
    double loss = 0;
    for (const Sample& s : data) {
      double z = w[kFeatures];
      for (std::size_t f = 0; f < kFeatures; ++f) z += static_cast<double>(w[f]) * s.x[f];
      const double p = 1.0 / (1.0 + std::exp(-z));
      const double err = p - s.y;
      for (std::size_t f = 0; f < kFeatures; ++f) grad[f] += err * s.x[f];
      grad[kFeatures] += err;
      loss += -(s.y * std::log(p + 1e-12) + (1 - s.y) * std::log(1 - p + 1e-12));
    }
    for (std::size_t k = 0; k < kParams; ++k) {
      msg[k] = static_cast<float>(grad[k] / static_cast<double>(shard));
    }
    msg[kParams] = static_cast<float>(loss / static_cast<double>(shard));
    if (comm) {  // equal shards: the average of shard means is the global mean
      if (auto ok = comm->all_reduce(msg.data(), msg.data(), msg.size(), tc::ReduceOp::kAvg); !ok) {
        std::fprintf(stderr, "all_reduce: %s\n", ok.error().message.c_str());
        return 1;
      }
    }
    for (std::size_t k = 0; k < kParams; ++k) w[k] -= opts->lr * msg[k];
    if (rank == 0) std::printf("epoch=%d loss=%.6f\n", epoch, static_cast<double>(msg[kParams]));
  }

  if (rank != 0) return 0;
  if (!opts->out.empty()) {
    std::FILE* f = std::fopen(opts->out.c_str(), "w");
    if (f == nullptr) return 1;
    for (const float v : w) std::fprintf(f, "%.9g\n", static_cast<double>(v));
    std::fclose(f);
  }
  if (!opts->compare.empty()) {
    std::FILE* f = std::fopen(opts->compare.c_str(), "r");
    if (f == nullptr) {
      std::fprintf(stderr, "cannot read %s\n", opts->compare.c_str());
      return 1;
    }
    double worst = 0;
    for (const float v : w) {
      double ref = 0;
      if (std::fscanf(f, "%lf", &ref) != 1) {
        std::fclose(f);
        std::fprintf(stderr, "%s: too few weights\n", opts->compare.c_str());
        return 1;
      }
      worst = std::fmax(worst, std::fabs(ref - static_cast<double>(v)));
    }
    std::fclose(f);
    std::printf("ranks=%d max |w - w_single| = %.3g (tolerance %.3g)\n", size, worst,
                opts->tolerance);
    return worst <= opts->tolerance ? 0 : 1;
  }
  return 0;
}
