// SPDX-License-Identifier: Apache-2.0
//
// Decode + default + validate of a typical TrainJob with its runtime, from YAML and from JSON,
// next to a Boost.JSON parse + serialize of the same objects' JSON bytes (the floor: what it
// costs just to read and write that JSON). Prints the ratio ours / floor after the run.
#include "trainer/admission.hpp"
#include "trainer/codec.hpp"

#include <benchmark/benchmark.h>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Inputs {
  std::string yaml;
  std::string json;
};

const Inputs& inputs() {
  static const Inputs in = [] {
    const std::string dir = std::string(TRAINER_EXAMPLES_DIR) + "/torch-distributed/";
    Inputs r;
    r.yaml = read_file(dir + "runtime.yaml") + "---\n" + read_file(dir + "trainjob.yaml");
    auto docs = trainer::parse_documents(r.yaml);
    if (!docs) {
      std::fprintf(stderr, "bench: cannot parse the example: %s\n", docs.error().message.c_str());
      std::exit(1);
    }
    // Both documents as one JSON `v1` `List`, the shape `kubectl get -o json` prints.
    boost::json::object list;
    list["apiVersion"] = "v1";
    list["kind"] = "List";
    list["items"] = boost::json::array(docs->begin(), docs->end());
    r.json = boost::json::serialize(list);
    return r;
  }();
  return in;
}

void admit_text(benchmark::State& state, const std::string& text) {
  for (auto _ : state) {
    auto docs = trainer::parse_documents(text);
    auto admitted = trainer::admit(*docs);
    if (!admitted || !admitted->ok()) state.SkipWithError("example rejected");
    benchmark::DoNotOptimize(admitted);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}

void BM_AdmitYaml(benchmark::State& state) {
  admit_text(state, inputs().yaml);
}
void BM_AdmitJson(benchmark::State& state) {
  admit_text(state, inputs().json);
}

// The floor: parse the JSON bytes into a DOM and serialize it back.
void BM_BoostJsonParseSerialize(benchmark::State& state) {
  const auto& text = inputs().json;
  for (auto _ : state) {
    auto v = boost::json::parse(text);
    auto out = boost::json::serialize(v);
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}

BENCHMARK(BM_AdmitYaml);
BENCHMARK(BM_AdmitJson);
BENCHMARK(BM_BoostJsonParseSerialize);

// Keeps each benchmark's mean time per iteration so the ratios can be printed at the end.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& run : runs) {
      if (run.run_type == Run::RT_Iteration && run.iterations > 0) {
        ns_[run.benchmark_name()] = run.GetAdjustedRealTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void print_ratios() const {
    const auto floor = ns_.find("BM_BoostJsonParseSerialize");
    if (floor == ns_.end()) return;
    std::printf("\ninput: %zu bytes YAML, %zu bytes JSON (2 documents)\n", inputs().yaml.size(),
                inputs().json.size());
    for (const auto& [name, ns] : ns_) {
      std::printf("%-28s %10.2f us  ratio to Boost.JSON parse+serialize: %.1fx\n", name.c_str(),
                  ns / 1000.0, ns / floor->second);
    }
  }

 private:
  std::map<std::string, double> ns_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_ratios();
  benchmark::Shutdown();
  return 0;
}
