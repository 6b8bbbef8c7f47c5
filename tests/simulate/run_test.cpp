// simulate/run: rows per (point, scheme), speed-ups against the baselines at the same
// point (also when the baselines were not asked for), the gpus axis, timelines.
#include "simulate/run.h"

#include "model/profile_json.h"
#include "simulate/error.h"
#include "test_profile.h"

#include <gtest/gtest.h>

namespace gcu::simulate {
namespace {

using test::tiny_profile;

RunRequest req(std::vector<std::string> schemes) {
  RunRequest r;
  r.schemes = std::move(schemes);
  return r;
}

TEST(Run, OnePointSpeedupsAgainstBothBaselines) {
  const auto t = run_simulation(tiny_profile(), req({"none", "fp16", "topk:k=0.1"}));
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_FALSE(t.sweep.has_value());
  EXPECT_EQ(t.schemes, (std::vector<std::string>{"none", "fp16", "topk:k=0.1"}));
  const auto& none = t.rows[0];
  const auto& fp16 = t.rows[1];
  const auto& topk = t.rows[2];
  EXPECT_DOUBLE_EQ(*none.vs_fp32, 1.0);
  EXPECT_DOUBLE_EQ(*fp16.vs_fp16, 1.0);
  EXPECT_DOUBLE_EQ(*topk.vs_fp32, none.iteration.total_s / topk.iteration.total_s);
  EXPECT_DOUBLE_EQ(*topk.vs_fp16, fp16.iteration.total_s / topk.iteration.total_s);
  EXPECT_GT(topk.iteration.total_s, 0);
  EXPECT_EQ(t.context.nodes, 2);
  EXPECT_EQ(t.context.batch_size, 32);  // the first compute entry
  EXPECT_TRUE(topk.tta.has_value());
}

TEST(Run, BaselinesComputedWhenNotRequested) {
  const auto t = run_simulation(tiny_profile(), req({"topk:k=0.1"}));
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_TRUE(t.rows[0].vs_fp32.has_value());
  EXPECT_TRUE(t.rows[0].vs_fp16.has_value());
}

TEST(Run, NoFp16FitMeansNoVsFp16) {
  auto j = test::tiny_profile_json();
  j["compressors"].erase("fp16");
  const auto p = model::profile_from_json(j);
  const auto t = run_simulation(p, req({"none", "topk:k=0.1"}));
  EXPECT_FALSE(t.rows[1].vs_fp16.has_value());
  EXPECT_TRUE(t.rows[1].vs_fp32.has_value());
  EXPECT_THROW(run_simulation(p, req({"fp16"})), model::ModelError);  // asked for: an error
}

TEST(Run, BandwidthSweepRowsAndMonotonicity) {
  RunRequest r = req({"none", "topk:k=0.1"});
  r.sweep = parse_sweep("bandwidth_gbps=1:16:4");
  const auto t = run_simulation(tiny_profile(), r);
  ASSERT_EQ(t.rows.size(), 8u);
  for (size_t i = 0; i < t.rows.size(); ++i) {
    EXPECT_EQ(t.rows[i].scheme, i % 2 ? "topk:k=0.1" : "none");
    EXPECT_DOUBLE_EQ(t.rows[i].x, r.sweep->values[i / 2]);
    EXPECT_DOUBLE_EQ(t.rows[i].inter_bandwidth_gbps, t.rows[i].x);
  }
  for (size_t i = 2; i < t.rows.size(); ++i)
    EXPECT_LE(t.rows[i].iteration.total_s, t.rows[i - 2].iteration.total_s * (1 + 1e-12));
}

TEST(Run, GpusAxisUsesWholeNodesOrOneNode) {
  const auto p = tiny_profile();
  EXPECT_EQ(nodes_for_gpus(p, 1), std::make_pair(1, 1));
  EXPECT_EQ(nodes_for_gpus(p, 2), std::make_pair(1, 2));
  EXPECT_EQ(nodes_for_gpus(p, 8), std::make_pair(4, 2));
  EXPECT_THROW(nodes_for_gpus(p, 3), SimulateError);
  RunRequest r = req({"none"});
  r.sweep = parse_sweep("gpus=1,2,4,8");
  const auto t = run_simulation(p, r);
  ASSERT_EQ(t.rows.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(t.rows[i].iteration.world, int(r.sweep->values[i]));
}

TEST(Run, GpusSweepConflictsAndBadCountsNameTheValues) {
  const auto p = tiny_profile();  // 2 GPUs per node
  RunRequest r = req({"none"});
  r.sweep = parse_sweep("gpus=2,4,8");
  r.gpus = 4;
  try {
    run_simulation(p, r);
    FAIL() << "no error";
  } catch (const SimulateError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--gpus 4"), std::string::npos) << m;
    EXPECT_NE(m.find("gpus"), std::string::npos) << m;
  }
  r.sweep = parse_sweep("nodes=1,2");
  EXPECT_THROW(run_simulation(p, r), SimulateError);
  r.gpus = 0;
  r.sweep = parse_sweep("gpus=2,5,8");
  try {
    run_simulation(p, r);
    FAIL() << "no error";
  } catch (const SimulateError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("gpus = 5"), std::string::npos) << m;
    EXPECT_NE(m.find("use 4 or 6"), std::string::npos) << m;
  }
}

TEST(Run, TtaRescaledAlongGpusSweepWithAssumptionStated) {
  RunRequest r = req({"none"});
  r.sweep = parse_sweep("gpus=4,8");  // B0 = 4 x 32 = 128 = B_crit: 8 GPUs take 0.75 of the iterations
  const auto t = run_simulation(tiny_profile(), r);
  ASSERT_EQ(t.rows.size(), 2u);
  ASSERT_TRUE(t.rows[0].tta && t.rows[1].tta);
  EXPECT_DOUBLE_EQ(*t.rows[0].tta->iterations, 1000);
  EXPECT_DOUBLE_EQ(*t.rows[1].tta->iterations, 750);
  EXPECT_DOUBLE_EQ(t.context.reference_global_batch, 128);
  EXPECT_TRUE(t.context.critical_batch_defaulted);
  ASSERT_FALSE(t.assumptions.empty());
  EXPECT_NE(t.assumptions[0].find("B_crit"), std::string::npos) << t.assumptions[0];
  r.with_tta = false;
  // Without TTA no B_crit line; what is left is the collective fits (calibrated at 4
  // ranks) used at 8.
  const auto a = run_simulation(tiny_profile(), r).assumptions;
  ASSERT_EQ(a.size(), 1u);
  EXPECT_NE(a[0].find("the collective fits were measured at 4 ranks; the algorithm formulas extrapolate them to 8"),
            std::string::npos)
      << a[0];
}

TEST(Run, UnknownSchemeIsAnError) {
  try {
    run_simulation(tiny_profile(), req({"nosuchscheme"}));
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("nosuchscheme"), std::string::npos) << e.what();
  }
  EXPECT_THROW(run_simulation(tiny_profile(), req({})), SimulateError);
}

TEST(Run, TimelinesForEachScheme) {
  const auto its = predict_timelines(tiny_profile(), req({"none", "topk:k=0.1", "none"}));
  ASSERT_EQ(its.size(), 2u);  // duplicates dropped
  for (const auto& it : its) {
    EXPECT_FALSE(it.timeline.empty());
    bool comm = false;
    for (const auto& e : it.timeline) comm = comm || e.lane == model::Lane::Comm;
    EXPECT_TRUE(comm) << it.scheme;
  }
}

}  // namespace
}  // namespace gcu::simulate
