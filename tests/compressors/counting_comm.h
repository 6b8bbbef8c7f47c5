// Test helper: a Communicator decorator that forwards to a real one (LocalGroup's) and
// records every call (kind, type, count), so tests can compare Compressor::plan() with
// the bytes step() really sends; plus run_step(), which runs one step() of a scheme on
// p in-process ranks and returns each rank's output and recorded calls.
#pragma once

#include "compressors/local_group.h"
#include "compressors/registry.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace gcu::compress::testing {

class CountingComm final : public Communicator {
 public:
  explicit CountingComm(Communicator& inner) : inner_(inner) {}
  int rank() const override { return inner_.rank(); }
  int world_size() const override { return inner_.world_size(); }
  void all_reduce(void* data, int64_t count, WireType type, ReduceOp op) override {
    calls.push_back({CollectiveKind::AllReduce, type, count, ""});
    inner_.all_reduce(data, count, type, op);
  }
  void all_gather(const void* send, void* recv, int64_t count, WireType type) override {
    calls.push_back({CollectiveKind::AllGather, type, count, ""});
    inner_.all_gather(send, recv, count, type);
  }
  void broadcast(void* data, int64_t count, WireType type, int root) override {
    calls.push_back({CollectiveKind::Broadcast, type, count, ""});
    inner_.broadcast(data, count, type, root);
  }
  std::vector<CollectiveCall> calls;

 private:
  Communicator& inner_;
};

// Recorded calls equal the plan in kind, type and count, in order.
inline void expect_calls_match_plan(const std::vector<CollectiveCall>& calls,
                                    const std::vector<CollectiveCall>& plan) {
  ASSERT_EQ(calls.size(), plan.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].kind, plan[i].kind) << "call " << i << " " << plan[i].label;
    EXPECT_EQ(calls[i].type, plan[i].type) << "call " << i << " " << plan[i].label;
    EXPECT_EQ(calls[i].count, plan[i].count) << "call " << i << " " << plan[i].label;
  }
}

struct StepResult {
  std::vector<std::vector<float>> out;  // per rank, after step()
  std::vector<std::vector<CollectiveCall>> calls;  // per rank
};

// One compressor per rank (made from `spec`), rank r's input inputs[r]; runs `steps` steps
// (same inputs each time) and returns the state after the last one.
inline StepResult run_step(const std::string& spec, const std::vector<std::vector<float>>& inputs,
                           const BucketLayout& layout, int steps = 1, int64_t bucket_index = 0) {
  const int p = static_cast<int>(inputs.size());
  std::vector<std::unique_ptr<Compressor>> comps;
  for (int r = 0; r < p; ++r) comps.push_back(make_compressor(spec));
  StepResult res;
  res.out.resize(p);
  res.calls.resize(p);
  LocalGroup g(p);
  g.run([&](Communicator& c) {
    const int r = c.rank();
    CountingComm cc(c);
    for (int s = 0; s < steps; ++s) {
      res.out[r] = inputs[r];
      cc.calls.clear();
      comps[r]->step({bucket_index, res.out[r].data(), &layout}, cc);
    }
    res.calls[r] = cc.calls;
  });
  return res;
}

// One step of `spec` on every rank gives each rank the mean of the ranks' own
// roundtrip() outputs (the scheme's aggregation over the scattered selections), and the
// calls it makes are the ones its plan() declares.
inline void expect_step_is_mean_of_roundtrips(const std::string& spec, const std::vector<std::vector<float>>& in,
                                              const BucketLayout& layout) {
  const int p = static_cast<int>(in.size());
  const int64_t n = layout.numel();
  const auto res = run_step(spec, in, layout);
  auto c = make_compressor(spec);
  std::vector<double> expect(size_t(n), 0.0);
  for (int r = 0; r < p; ++r) {
    std::vector<float> y(static_cast<size_t>(n));
    c->roundtrip(0, in[size_t(r)].data(), y.data(), layout);
    for (int64_t i = 0; i < n; ++i) expect[size_t(i)] += y[size_t(i)] / p;
  }
  for (int r = 0; r < p; ++r) {
    expect_calls_match_plan(res.calls[size_t(r)], c->plan(layout, p));
    for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(res.out[size_t(r)][size_t(i)], expect[size_t(i)], 1e-6) << spec << " " << i;
  }
}

// One step of `spec` gives every rank the mean of the inputs within `tolerance`, the same
// values on every rank, and the calls its plan() declares (the all-reduce casts).
inline void expect_step_is_input_mean(const std::string& spec, const std::vector<std::vector<float>>& in,
                                      const BucketLayout& layout, double tolerance) {
  const int p = static_cast<int>(in.size());
  const auto res = run_step(spec, in, layout);
  const auto plan = make_compressor(spec)->plan(layout, p);
  for (int r = 0; r < p; ++r) {
    expect_calls_match_plan(res.calls[size_t(r)], plan);
    for (int64_t i = 0; i < layout.numel(); ++i) {
      double mean = 0;
      for (int q = 0; q < p; ++q) mean += in[size_t(q)][size_t(i)];
      mean /= p;
      EXPECT_NEAR(res.out[size_t(r)][size_t(i)], mean, tolerance) << spec << " p=" << p << " i=" << i;
      EXPECT_EQ(res.out[size_t(r)][size_t(i)], res.out[0][size_t(i)]);  // all ranks agree
    }
  }
}

}  // namespace gcu::compress::testing
