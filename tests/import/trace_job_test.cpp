// The traced job (import/trace_job.h): on the real traces python3-torch wrote here (2-rank
// Gloo DDP on CPU, a CNN and a transformer), each figure against the trace's own events,
// found here by name with nlohmann's DOM; on the hand-made Kineto CUDA trace, the GPU
// clock's figures worked out in trace_fixtures.h; and the errors for what is not a DDP job.
#include "import/trace_job.h"
#include "trace_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace gcu::import {
namespace {

using nlohmann::json;

double med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// The figures of each ProfilerStep, straight from the JSON.
struct Expected {
  std::vector<double> forward_s, backward_s, iteration_s, optimizer_s;
  std::vector<std::vector<double>> bucket_ready_s;
  std::vector<int> bucket_tensors;  // of the last step
  int gradients = 0;
};

Expected expected_from(const std::string& file) {
  const json all = json::parse(testing::slurp(testing::traces_dir() + file));
  const auto named = [&](const std::string& prefix) {
    std::vector<json> v;
    for (const auto& e : all)
      if (e["name"].get<std::string>().rfind(prefix, 0) == 0) v.push_back(e);
    std::sort(v.begin(), v.end(), [](const json& a, const json& b) { return a["ts"].get<double>() < b["ts"].get<double>(); });
    return v;
  };
  const auto steps = named("ProfilerStep#"), fwds = named("DistributedDataParallel.forward"),
             nodes = named("autograd::engine::evaluate_function: "), launches = named("c10d::allreduce_"),
             opts = named("Optimizer.step#"), zeros = named("Optimizer.zero_grad#");
  Expected x;
  for (const auto& s : steps) {
    const double a = s["ts"].get<double>(), b = a + s["dur"].get<double>();
    const auto in = [&](const json& e) { return e["ts"].get<double>() >= a && e["ts"].get<double>() < b; };
    double fwd = 0, bwd0 = 1e300, bwd1 = 0, opt = 0;
    for (const auto& e : fwds) if (in(e)) fwd = e["ts"].get<double>();
    std::vector<double> acc;
    for (const auto& e : nodes)
      if (in(e)) {
        bwd0 = std::min(bwd0, e["ts"].get<double>());
        bwd1 = std::max(bwd1, e["ts"].get<double>() + e["dur"].get<double>());
        if (e["name"] == "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad")
          acc.push_back(e["ts"].get<double>());
      }
    for (const auto& e : opts) if (in(e)) opt += e["dur"].get<double>();
    for (const auto& e : zeros) if (in(e)) opt += e["dur"].get<double>();
    x.forward_s.push_back((bwd0 - fwd) * 1e-6);
    x.backward_s.push_back((bwd1 - bwd0) * 1e-6);
    x.iteration_s.push_back((b - a) * 1e-6);
    x.optimizer_s.push_back(opt * 1e-6);
    x.gradients = static_cast<int>(acc.size());
    std::vector<double> ready;
    x.bucket_tensors.clear();
    int before = 0;
    for (const auto& l : launches)
      if (in(l)) {
        const double t = l["ts"].get<double>();
        ready.push_back((t - bwd0) * 1e-6);
        const int n = static_cast<int>(std::count_if(acc.begin(), acc.end(), [&](double g) { return g <= t; }));
        x.bucket_tensors.push_back(n - before);
        before = n;
      }
    x.bucket_ready_s.push_back(ready);
  }
  return x;
}

void expect_matches(const std::string& file, int gradients, std::vector<int> buckets) {
  SCOPED_TRACE(file);
  const TracedJob job = analyze_trace(read_trace_file(testing::traces_dir() + file));
  const Expected x = expected_from(file);
  EXPECT_EQ(job.device, "cpu");
  EXPECT_EQ(job.iterations_traced, 3);
  ASSERT_EQ(job.used.size(), 3u) << (job.notes.empty() ? "" : job.notes[0]);
  const TracedIteration& m = job.median;
  EXPECT_EQ(x.gradients, gradients);  // what the recorder's README says of the job
  EXPECT_EQ(x.bucket_tensors, buckets);
  EXPECT_EQ(static_cast<int>(m.tensor_ready_s.size()), gradients);
  ASSERT_EQ(m.buckets.size(), buckets.size());
  for (size_t k = 0; k < buckets.size(); ++k) {
    EXPECT_EQ(m.buckets[k].tensors, buckets[k]);
    std::vector<double> r;
    for (const auto& it : x.bucket_ready_s) r.push_back(it[k]);
    EXPECT_NEAR(m.buckets[k].ready_s, med(r), 1e-9);
    EXPECT_EQ(m.buckets[k].elements, -1);  // PyTorch 1.13 without Kineto records no sizes
  }
  EXPECT_NEAR(m.forward_s, med(x.forward_s), 1e-9);
  EXPECT_NEAR(m.backward_s, med(x.backward_s), 1e-9);
  EXPECT_NEAR(m.iteration_s, med(x.iteration_s), 1e-9);
  EXPECT_NEAR(m.optimizer_s, med(x.optimizer_s), 1e-9);
  // Ready times rise through backward; the last gradient is ready before backward ends.
  EXPECT_TRUE(std::is_sorted(m.tensor_ready_s.begin(), m.tensor_ready_s.end()));
  EXPECT_GT(m.tensor_ready_s.front(), 0);
  EXPECT_LE(m.tensor_ready_s.back(), m.backward_s);
  // The phases fit in the iteration; Gloo's all-reduces are measured, one per bucket.
  for (const TracedIteration& it : job.used)
    EXPECT_LE(it.data_s + it.forward_s + it.backward_s + it.tail_s + it.optimizer_s, it.iteration_s * 1.0001);
  EXPECT_EQ(m.collectives.size(), buckets.size());
  for (const auto& c : m.collectives) {
    EXPECT_EQ(c.kind, Collective::AllReduce);
    EXPECT_GT(c.seconds, 0);
  }
}

TEST(TraceJob, CnnTraceFiguresAreTheTracesOwn) { expect_matches("cpu-gloo-2rank-cnn.json", 12, {4, 8}); }
TEST(TraceJob, TransformerTraceFiguresAreTheTracesOwn) { expect_matches("cpu-gloo-2rank-transformer.json", 18, {8, 10}); }
TEST(TraceJob, Fp16HookTraceHasTheSameBuckets) { expect_matches("cpu-gloo-2rank-cnn-fp16.json", 12, {4, 8}); }

TEST(TraceJob, CudaFiguresAreReadOnTheGpusClock) {
  std::istringstream in(testing::kineto_cuda_trace(2));
  const TracedJob job = analyze_trace(read_trace(in));
  EXPECT_EQ(job.device, "cuda");
  EXPECT_EQ(job.gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(job.world_size, 8);
  ASSERT_EQ(job.used.size(), 2u);
  const TracedIteration& m = job.median;
  EXPECT_NEAR(m.forward_s, 150e-6, 1e-9);
  EXPECT_NEAR(m.backward_s, 320e-6, 1e-9);
  EXPECT_NEAR(m.optimizer_s, 30e-6, 1e-9);
  EXPECT_NEAR(m.tail_s, 270e-6, 1e-9);
  EXPECT_NEAR(m.data_s, 10e-6, 1e-9);
  EXPECT_NEAR(m.iteration_s, 770e-6, 1e-9);  // the GPU's: first kernel 30 to the optimizer's end 800
  ASSERT_EQ(m.tensor_ready_s.size(), 2u);
  EXPECT_NEAR(m.tensor_ready_s[0], 270e-6, 1e-9);
  EXPECT_NEAR(m.tensor_ready_s[1], 320e-6, 1e-9);
  ASSERT_EQ(m.buckets.size(), 2u);
  EXPECT_EQ(m.buckets[0].tensors, 1);
  EXPECT_EQ(m.buckets[0].elements, 1000);
  EXPECT_EQ(m.buckets[1].elements, 2000);
  EXPECT_NEAR(m.buckets[1].ready_s, 320e-6, 1e-9);
  ASSERT_EQ(m.collectives.size(), 2u);
  EXPECT_NEAR(m.collectives[0].seconds, 200e-6, 1e-9);
  EXPECT_NEAR(m.collectives[0].start_s, 280e-6, 1e-9);
  EXPECT_NEAR(m.collectives[1].seconds, 100e-6, 1e-9);
  EXPECT_EQ(m.collectives[1].elements, 2000);
}

std::string analyze_error(const std::string& text) {
  try {
    std::istringstream in(text);
    analyze_trace(read_trace(in));
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

// The cnn trace with every event of one name renamed (a job without it).
std::string without(const std::string& name, const std::string& instead) {
  std::string t = testing::slurp(testing::traces_dir() + "cpu-gloo-2rank-cnn.json");
  for (size_t at = t.find(name); at != std::string::npos; at = t.find(name, at + instead.size()))
    t.replace(at, name.size(), instead);
  return t;
}

TEST(TraceJob, WhatIsNotADdpJobIsNamed) {
  EXPECT_NE(analyze_error(without("DistributedDataParallel.forward", "Net.forward")).find("not a DDP job"),
            std::string::npos);
  EXPECT_NE(analyze_error(without("c10d::allreduce_", "aten::add_")).find("no all-reduce"), std::string::npos);
  EXPECT_NE(analyze_error(without("torch::autograd::AccumulateGrad", "MulBackward0")).find("AccumulateGrad"),
            std::string::npos);
  EXPECT_NE(analyze_error(without("autograd::engine::evaluate_function", "autograd::other")).find("no backward"),
            std::string::npos);
  EXPECT_NE(analyze_error("[]").find("not a DDP job"), std::string::npos);
}

TEST(TraceJob, IterationsWithOtherBucketsAreLeftOutAndSaid) {
  // Three iterations; the first has its two gradients in one bucket (DDP's buckets before
  // it rebuilt them in ready order): it is left out with a note.
  auto t = nlohmann::json::parse(testing::kineto_cuda_trace(3));
  auto& ev = t["traceEvents"];
  for (size_t i = 0; i < ev.size(); ++i)
    if (ev[i]["name"] == "c10d::allreduce_" && ev[i]["ts"].get<double>() < 1.7e12 + 260) {
      ev.erase(i);
      break;
    }
  std::istringstream in(t.dump());
  const TracedJob job = analyze_trace(read_trace(in));
  EXPECT_EQ(job.iterations_traced, 3);
  EXPECT_EQ(job.used.size(), 2u);
  ASSERT_EQ(job.notes.size(), 1u);
  EXPECT_NE(job.notes[0].find("iteration 0 left out"), std::string::npos) << job.notes[0];
}

}  // namespace
}  // namespace gcu::import
