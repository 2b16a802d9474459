// SPDX-License-Identifier: Apache-2.0
//
// The whole render pipeline (`render_documents`: decode, default, admit, snapshot, plugin phases,
// builders) for an 8-node torch TrainJob with dataset and model initializers on a coscheduling
// runtime, text in -> text out: JSON -> JSON and YAML -> YAML.
//
// Each render is measured against its floor, interleaved in the same process (the machine is
// shared, so only ratios measured side by side hold):
//   JSON -> JSON: a Boost.JSON parse + serialize of the same input bytes and of the same output
//                 bytes (only reading and writing that much JSON);
//   YAML -> YAML: yaml-cpp's own work on the same bytes: its event parser over the input (into a
//                 handler that keeps nothing) and its emitter writing the output documents.
// The summary after the Google Benchmark table alternates blocks of renders and of floors
// (`--rounds`, default 15, each block about 20 ms) and prints, for each, the fastest block's CPU
// time per operation (this thread's: time the core spent on other processes does not count) and
// the ratio; the fastest block is the one least disturbed by other work. The YAML path is also
// put beside yaml-cpp's parse of the input alone: what is left above it is ours.
//
// Counters per benchmark (the Google Benchmark table):
//   renders/s          renders per second of wall time;
//   alloc_bytes        bytes allocated by one render (operator new, this binary replaces it);
//   peak_bytes         peak of live heap bytes during one render, above what was live before it.
#include "alloc_counter.hpp"

#include "trainer/codec.hpp"
#include "trainer/render.hpp"

#include <benchmark/benchmark.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
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

// yaml-cpp's parse of a stream into a handler that keeps nothing: the least its parser does.
class DiscardEvents final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string& value) override {
    benchmark::DoNotOptimize(value.data());
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

void yaml_cpp_parse(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DiscardEvents handler;
  while (parser.HandleNextDocument(handler)) {
  }
}

void emit_value(YAML::Emitter& out, const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::object:
      out << YAML::BeginMap;
      for (const auto& kv : v.get_object()) {
        out << YAML::Key << std::string(kv.key()) << YAML::Value;
        emit_value(out, kv.value());
      }
      out << YAML::EndMap;
      return;
    case boost::json::kind::array:
      out << YAML::BeginSeq;
      for (const auto& item : v.get_array()) emit_value(out, item);
      out << YAML::EndSeq;
      return;
    case boost::json::kind::string: out << std::string(v.get_string()); return;
    case boost::json::kind::bool_: out << v.get_bool(); return;
    case boost::json::kind::int64: out << v.get_int64(); return;
    case boost::json::kind::uint64: out << v.get_uint64(); return;
    case boost::json::kind::double_: out << v.get_double(); return;
    case boost::json::kind::null: out << YAML::Null; return;
  }
}

// yaml-cpp's emitter writing `documents` as one stream.
std::string yaml_cpp_emit(const std::vector<boost::json::value>& documents) {
  YAML::Emitter out;
  for (const auto& doc : documents) {
    out << YAML::BeginDoc;
    emit_value(out, doc);
  }
  return out.c_str();
}

enum class Floor { kJsonParseSerialize, kYamlParseEmit, kYamlParse };

struct Case {
  std::string text;                               ///< the render's input
  Format format;                                  ///< and its output
  Floor floor;                                    ///< what it is measured against
  std::string json_out;                           ///< JSON floor: the output's JSON bytes
  std::vector<boost::json::value> out_documents;  ///< YAML floor: the output documents
};

Case make_case(const std::string& text, Format format, Floor floor,
               const trainer::RenderContext& ctx) {
  Case c{text, format, floor, {}, {}};
  c.json_out = render_text(text, Format::kJson, ctx);
  auto docs = trainer::parse_documents(render_text(text, Format::kYaml, ctx));
  if (!docs) die(docs.error().message);
  c.out_documents = std::move(*docs);
  return c;
}

void floor_once(const Case& c) {
  if (c.floor == Floor::kJsonParseSerialize) {
    auto a = boost::json::serialize(boost::json::parse(c.text));
    auto b = boost::json::serialize(boost::json::parse(c.json_out));
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
    return;
  }
  yaml_cpp_parse(c.text);
  if (c.floor == Floor::kYamlParse) return;
  auto out = yaml_cpp_emit(c.out_documents);
  benchmark::DoNotOptimize(out);
}

// This thread's CPU time: on a shared machine the wall time of a block also counts the time
// other processes held the core.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// CPU seconds per call of `f` over a block of `reps` calls.
template <class F>
double block_seconds(std::size_t reps, F&& f) {
  const double start = thread_cpu_seconds();
  for (std::size_t i = 0; i < reps; ++i) f();
  return (thread_cpu_seconds() - start) / static_cast<double>(reps);
}

struct Ratio {
  double ours = 0;   ///< seconds per render, fastest block
  double floor = 0;  ///< seconds per floor operation, fastest block
};

Ratio interleaved(const Case& c, const trainer::RenderContext& ctx, int rounds) {
  const auto render = [&] { benchmark::DoNotOptimize(render_text(c.text, c.format, ctx)); };
  const auto floor = [&] { floor_once(c); };
  // Blocks of about 20 ms each, sized from one warm call of each.
  const auto reps_for = [](double seconds) {
    return static_cast<std::size_t>(std::max(1.0, 0.02 / std::max(seconds, 1e-7)));
  };
  const std::size_t render_reps = reps_for(block_seconds(3, render));
  const std::size_t floor_reps = reps_for(block_seconds(3, floor));
  Ratio r{1e9, 1e9};
  for (int i = 0; i < rounds; ++i) {
    // A B, then B A: neither always runs first after the other warmed the caches.
    if (i % 2 == 0) {
      r.ours = std::min(r.ours, block_seconds(render_reps, render));
      r.floor = std::min(r.floor, block_seconds(floor_reps, floor));
    } else {
      r.floor = std::min(r.floor, block_seconds(floor_reps, floor));
      r.ours = std::min(r.ours, block_seconds(render_reps, render));
    }
  }
  return r;
}

void run(benchmark::State& state, const std::string& text, Format format) {
  const auto ctx = make_context();
  const std::string sample = render_text(text, format, ctx);
  const auto before = bench::alloc_snapshot();
  bench::reset_peak();
  benchmark::DoNotOptimize(render_text(text, format, ctx));
  const auto after = bench::alloc_snapshot();

  // The renders are timed with the heap counters off (see alloc_counter.hpp).
  bench::set_counting(false);
  for (auto _ : state) {
    auto out = render_text(text, format, ctx);
    benchmark::DoNotOptimize(out);
  }
  bench::set_counting(true);

  state.counters["renders/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
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

// `--rounds N` (taken out of argv before Google Benchmark sees it): blocks per side in the
// summary; 0 skips it.
int take_rounds(int& argc, char** argv) {
  int rounds = 15;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--rounds" && i + 1 < argc) {
      rounds = std::atoi(argv[i + 1]);
      for (int j = i; j + 2 <= argc; ++j) argv[j] = argv[j + 2];
      argc -= 2;
      break;
    }
  }
  return rounds;
}

void print_summary(int rounds) {
  if (rounds <= 0) return;
  const auto ctx = make_context();
  bench::set_counting(false);
  std::printf("\n%-22s %12s %12s %8s   (fastest of %d interleaved blocks each)\n", "render",
              "ours us", "floor us", "ratio", rounds);
  const struct {
    const char* name;
    const char* floor_text;
    const std::string& text;
    Format format;
    Floor floor;
  } cases[] = {
      {"JSON->JSON", "Boost.JSON parse+serialize of the input and output", inputs().json,
       Format::kJson, Floor::kJsonParseSerialize},
      {"YAML->YAML", "yaml-cpp parse of the input + emit of the output", inputs().yaml,
       Format::kYaml, Floor::kYamlParseEmit},
      {"YAML->YAML", "yaml-cpp parse of the input alone", inputs().yaml, Format::kYaml,
       Floor::kYamlParse},
  };
  for (const auto& k : cases) {
    const Case c = make_case(k.text, k.format, k.floor, ctx);
    const Ratio r = interleaved(c, ctx, rounds);
    std::printf("%-22s %12.1f %12.1f %7.2fx   floor: %s\n", k.name, r.ours * 1e6, r.floor * 1e6,
                r.ours / r.floor, k.floor_text);
  }
  bench::set_counting(true);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = take_rounds(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  print_summary(rounds);
  benchmark::Shutdown();
  return 0;
}
