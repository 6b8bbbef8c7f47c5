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

}  // namespace gcu::compress::testing
