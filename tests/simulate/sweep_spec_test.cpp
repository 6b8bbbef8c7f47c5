// simulate/sweep_spec: sweep axes, lists and ranges (A:B:N = N points), scheme lists.
#include "simulate/sweep_spec.h"

#include "simulate/error.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gcu::simulate {
namespace {

TEST(SweepSpec, RangeIsACountOfPointsInclusive) {
  const auto v = parse_values("1:40:40");
  ASSERT_EQ(v.size(), 40u);
  EXPECT_DOUBLE_EQ(v.front(), 1);
  EXPECT_DOUBLE_EQ(v[1], 2);
  EXPECT_DOUBLE_EQ(v.back(), 40);
  const auto w = parse_values("0.5:1:3");
  EXPECT_EQ(w, (std::vector<double>{0.5, 0.75, 1}));
  EXPECT_EQ(parse_values("3:3:1"), (std::vector<double>{3}));
}

TEST(SweepSpec, LogRange) {
  const auto v = parse_values("1:100:3:log");
  ASSERT_EQ(v.size(), 3u);
  EXPECT_NEAR(v[1], 10, 1e-9);
  EXPECT_DOUBLE_EQ(v[2], 100);
  EXPECT_THROW(parse_values("0:100:3:log"), SimulateError);
}

TEST(SweepSpec, Lists) {
  EXPECT_EQ(parse_values("8, 16,32"), (std::vector<double>{8, 16, 32}));
  EXPECT_EQ(parse_values("2.5"), (std::vector<double>{2.5}));
}

TEST(SweepSpec, Axes) {
  const SweepSpec s = parse_sweep("gpus=8,16,32,64");
  EXPECT_EQ(s.axis, SweepAxis::Gpus);
  EXPECT_EQ(s.values.size(), 4u);
  EXPECT_EQ(parse_sweep("bandwidth=1:10:10").axis, SweepAxis::Bandwidth);
  EXPECT_EQ(parse_sweep("batch=16,32").axis, SweepAxis::BatchSize);
  EXPECT_EQ(parse_sweep("compute_speedup=1:4:4").axis, SweepAxis::ComputeSpeedup);
  EXPECT_EQ(parse_sweep("nodes=1,2").axis, SweepAxis::Nodes);
}

TEST(SweepSpec, ErrorsNameTheText) {
  auto msg = [](auto f) {
    try {
      f();
    } catch (const SimulateError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg([] { parse_sweep("latency=1,2"); }).find("latency"), std::string::npos);
  EXPECT_NE(msg([] { parse_sweep("bandwidth_gbps"); }).find("AXIS=VALUES"), std::string::npos);
  EXPECT_NE(msg([] { parse_values("1:40:2.5"); }).find("count"), std::string::npos);
  EXPECT_NE(msg([] { parse_values("1:40"); }).find("A:B:N"), std::string::npos);
  EXPECT_NE(msg([] { parse_values("1,x,3"); }).find("\"x\""), std::string::npos);
  EXPECT_NE(msg([] { parse_sweep("gpus=8,12.5"); }).find("whole number"), std::string::npos);
  EXPECT_NE(msg([] { parse_sweep("bandwidth_gbps=0,10"); }).find("> 0"), std::string::npos);
  EXPECT_NE(msg([] { parse_values("1:2:1"); }).find("A == B"), std::string::npos);
}

TEST(SweepSpec, SchemeListsKeepParameters) {
  EXPECT_EQ(split_schemes({"none,fp16,powersgd:rank=4,topk:k=0.01"}),
            (std::vector<std::string>{"none", "fp16", "powersgd:rank=4", "topk:k=0.01"}));
  EXPECT_EQ(split_schemes({"none,topkc:k=0.01,chunk=256,fp16"}),
            (std::vector<std::string>{"none", "topkc:k=0.01,chunk=256", "fp16"}));
  EXPECT_EQ(split_schemes({"none", "fp16"}), (std::vector<std::string>{"none", "fp16"}));
  EXPECT_THROW(split_schemes({"chunk=256,none"}), SimulateError);
  EXPECT_THROW(split_schemes({"fp16,chunk=256"}), SimulateError);
}

}  // namespace
}  // namespace gcu::simulate
