// Model speed: predictions per second of the closed form and the
// event model on a BERT-base-like profile (201 tensors) at 96 GPUs (24 nodes x 4), and a
// 100,000-point bandwidth sweep. Target: the 100,000-point sweep, event model included,
// in under 1 s on one core. Ratios are printed against the closed form measured in the
// same run.
#include "model/iteration.h"
#include "simulate/whatif.h"

#include "fixtures.h"

#include "compressors/registry.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <ctime>

namespace gcu::model {
namespace {

Profile bert() {
  Profile p = testing::bert_base_profile();
  for (const char* s : {"topk:k=0.01", "powersgd:rank=4", "signsgd"})
    p.compressors[s] = {{1e-3, 1e-10}, {1e-3, 1e-10, 1e-12}, 0};
  return p;
}

bool registered(const std::string& s) {
  try {
    compress::make_compressor(s);
    return true;
  } catch (const compress::CompressorError&) {
    return false;
  }
}

// One prediction per iteration, bandwidth varying over 1..40 Gbps.
void run(benchmark::State& st, const std::string& scheme, IterationModel m, bool full) {
  if (!registered(scheme)) {
    st.SkipWithError(("scheme not registered: " + scheme).c_str());
    return;
  }
  const Profile p = bert();
  Setup s;
  s.scheme = scheme;
  s.model = m;
  const Predictor pred(p, s);
  Conditions c;
  double g = 1, sink = 0;
  for (auto _ : st) {
    c.inter_bandwidth_gbps = g;
    g = g >= 40 ? 1 : g + 0.37;
    if (full) sink += pred.predict(c).total_s;
    else sink += pred.iteration_s(c);
  }
  benchmark::DoNotOptimize(sink);
  st.SetItemsProcessed(st.iterations());
  st.counters["buckets"] = double(pred.buckets().size());
  st.counters["world"] = pred.world();
}

void BM_ClosedForm_none(benchmark::State& st) { run(st, "none", IterationModel::ClosedForm, false); }
void BM_Event_none(benchmark::State& st) { run(st, "none", IterationModel::Event, false); }
void BM_Event_fp16(benchmark::State& st) { run(st, "fp16", IterationModel::Event, false); }
void BM_Event_topk(benchmark::State& st) { run(st, "topk:k=0.01", IterationModel::Event, false); }
void BM_Event_powersgd(benchmark::State& st) { run(st, "powersgd:rank=4", IterationModel::Event, false); }
void BM_Event_none_fullresult(benchmark::State& st) { run(st, "none", IterationModel::Event, true); }
BENCHMARK(BM_ClosedForm_none);
BENCHMARK(BM_Event_none);
BENCHMARK(BM_Event_fp16);
BENCHMARK(BM_Event_topk);
BENCHMARK(BM_Event_powersgd);
BENCHMARK(BM_Event_none_fullresult);

// Build + plan cost (per scheme, per GPU count): what the nodes/batch axes pay per point.
void BM_PredictorConstruction(benchmark::State& st) {
  const Profile p = bert();
  for (auto _ : st) {
    Predictor pred(p, Setup{});
    benchmark::DoNotOptimize(pred.plan().wire_bytes);
  }
  st.SetItemsProcessed(st.iterations());
}
BENCHMARK(BM_PredictorConstruction);

// Wall and CPU seconds of a callable (CPU time: this process; the benchmark runs one thread).
struct Timing {
  double wall_s = 0, cpu_s = 0;
};
template <class F>
Timing timed(F&& f) {
  timespec c0{}, c1{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  const auto t0 = std::chrono::steady_clock::now();
  f();
  const auto t1 = std::chrono::steady_clock::now();
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  return {std::chrono::duration<double>(t1 - t0).count(),
          double(c1.tv_sec - c0.tv_sec) + 1e-9 * double(c1.tv_nsec - c0.tv_nsec)};
}

// The target: 100,000 bandwidth points, event model, through the fast path and through
// the public sweep() API (which returns full rows).
Timing sweep_fast(const std::string& scheme, IterationModel m) {
  const Profile p = bert();
  Setup s;
  s.scheme = scheme;
  s.model = m;
  return timed([&] {
    const Predictor pred(p, s);
    Conditions c;
    double sink = 0;
    for (int i = 0; i < 100000; ++i) {
      c.inter_bandwidth_gbps = 1 + 39.0 * i / 99999;
      sink += pred.iteration_s(c);
    }
    benchmark::DoNotOptimize(sink);
  });
}

Timing sweep_api() {
  const Profile p = bert();
  SweepRequest r;
  r.axis = Axis::Bandwidth;
  r.schemes = {"none"};
  r.with_tta = true;
  for (int i = 0; i < 100000; ++i) r.values.push_back(1 + 39.0 * i / 99999);
  return timed([&] {
    auto rows = sweep(p, r);
    benchmark::DoNotOptimize(rows.data());
  });
}

}  // namespace
}  // namespace gcu::model

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  using namespace gcu::model;
  const Timing closed = sweep_fast("none", IterationModel::ClosedForm);
  const Timing event = sweep_fast("none", IterationModel::Event);
  const Timing api = sweep_api();
  std::printf("\n100,000-point bandwidth sweep, BERT-base (201 tensors), 96 GPUs, one thread\n");
  std::printf("  %-40s %8s %8s  %s\n", "", "wall_s", "cpu_s", "target: < 1 s (cpu)");
  auto row = [](const char* name, Timing t, const Timing& base) {
    std::printf("  %-40s %8.3f %8.3f  %s, %.2fx the closed form\n", name, t.wall_s, t.cpu_s,
                t.cpu_s < 1 ? "met" : "MISSED", t.cpu_s / base.cpu_s);
  };
  row("closed form, Predictor::iteration_s", closed, closed);
  row("event model, Predictor::iteration_s", event, closed);
  row("event model, sweep() rows + TTA", api, closed);
  return 0;
}
