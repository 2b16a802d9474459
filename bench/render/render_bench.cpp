// SPDX-License-Identifier: Apache-2.0
//
// The whole render pipeline (`render_documents`: decode, default, admit, snapshot, plugin phases,
// builders) for an 8-node torch TrainJob with dataset and model initializers on a coscheduling
// runtime, text in -> text out: JSON -> JSON and YAML -> YAML.
//
// Counters per benchmark:
//   renders/s          renders per second of wall time;
//   floor_ratio        time per render / time of a Boost.JSON parse + serialize of the same input
//                      bytes and of the same output bytes (the floor: only reading and writing that
//                      much JSON), the floor timed in the same process just before the benchmark;
//   alloc_bytes        bytes allocated by one render (operator new, this binary replaces it);
//   peak_bytes         peak of live heap bytes during one render, above what was live before it.
#include "alloc_counter.hpp"

#include "trainer/codec.hpp"
#include "trainer/render.hpp"

#include <benchmark/benchmark.h>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_render: %s\n", what.c_str());
  std::exit(1);
}

struct Inputs {
  std::string yaml;
  std::string json;  ///< the same documents as one `v1` `List`
};

const Inputs& inputs() {
  static const Inputs in = [] {
    const std::string dir = std::string(TRAINER_BENCH_RENDER_DATA) + "/";
    Inputs r;
    r.yaml = read_file(dir + "runtime.yaml") + "---\n" + read_file(dir + "trainjob.yaml");
    auto docs = trainer::parse_documents(r.yaml);
    if (!docs) die("cannot parse the input: " + docs.error().message);
    boost::json::object list;
    list["apiVersion"] = "v1";
    list["kind"] = "List";
    list["items"] = boost::json::array(docs->begin(), docs->end());
    r.json = boost::json::serialize(list);
    return r;
  }();
  return in;
}

trainer::RenderContext make_context() {
  trainer::RenderContext ctx;
  ctx.train_job_uid = "7d4f5c1e-2b7a-4e55-9c1d-6a0e8f3b2c10";
  ctx.now = [] { return std::string("2025-01-01T00:00:00Z"); };
  return ctx;
}

enum class Format { kJson, kYaml };

// One render, text to text, as `trainerctl render -o json|yaml` does it.
std::string render_text(const std::string& text, Format format, const trainer::RenderContext& ctx) {
  auto docs = trainer::parse_documents(text);
  if (!docs) die(docs.error().message);
  auto out = trainer::render_documents(std::move(*docs), ctx);
  if (!out) die(out.error().message);
  if (format == Format::kYaml) return trainer::encode_yaml_stream(out->objects);
  boost::json::object list;
  list["apiVersion"] = "v1";
  list["kind"] = "List";
  list["items"] = boost::json::array(std::make_move_iterator(out->objects.begin()),
                                     std::make_move_iterator(out->objects.end()));
  return boost::json::serialize(list);
}

// Seconds per Boost.JSON parse + serialize of `input` and then of `output`, averaged over
// enough repetitions to last about 0.2 s.
double floor_seconds(const std::string& input, const std::string& output) {
  using Clock = std::chrono::steady_clock;
  std::size_t reps = 0;
  const auto start = Clock::now();
  auto elapsed = Clock::duration::zero();
  do {
    for (int i = 0; i < 64; ++i) {
      auto a = boost::json::serialize(boost::json::parse(input));
      auto b = boost::json::serialize(boost::json::parse(output));
      benchmark::DoNotOptimize(a);
      benchmark::DoNotOptimize(b);
    }
    reps += 64;
    elapsed = Clock::now() - start;
  } while (elapsed < std::chrono::milliseconds(200));
  return std::chrono::duration<double>(elapsed).count() / static_cast<double>(reps);
}

void run(benchmark::State& state, const std::string& text, Format format) {
  const auto ctx = make_context();
  const std::string sample = render_text(text, format, ctx);
  // The floor reads and writes JSON; for the YAML path it is timed on the JSON form of the
  // same documents, since Boost.JSON cannot read YAML.
  const std::string json_out =
      format == Format::kJson ? sample : render_text(inputs().json, Format::kJson, ctx);
  const auto before = bench::alloc_snapshot();
  bench::reset_peak();
  benchmark::DoNotOptimize(render_text(text, format, ctx));
  const auto after = bench::alloc_snapshot();

  // The floor and the renders are timed with the heap counters off (see alloc_counter.hpp).
  bench::set_counting(false);
  const double floor = floor_seconds(inputs().json, json_out);

  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  for (auto _ : state) {
    auto out = render_text(text, format, ctx);
    benchmark::DoNotOptimize(out);
  }
  const double per_render = std::chrono::duration<double>(Clock::now() - start).count() /
                            static_cast<double>(state.iterations());
  bench::set_counting(true);

  state.counters["renders/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["floor_ratio"] = per_render / floor;
  state.counters["floor_us"] = floor * 1e6;
  state.counters["alloc_bytes"] = static_cast<double>(after.allocated - before.allocated);
  state.counters["peak_bytes"] = static_cast<double>(after.peak - before.live);
  state.counters["in_bytes"] = static_cast<double>(text.size());
  state.counters["out_bytes"] = static_cast<double>(sample.size());
}

void BM_RenderJsonToJson(benchmark::State& state) {
  run(state, inputs().json, Format::kJson);
}
void BM_RenderYamlToYaml(benchmark::State& state) {
  run(state, inputs().yaml, Format::kYaml);
}

BENCHMARK(BM_RenderJsonToJson)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RenderYamlToYaml)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
