// The roofline of a described network (model/network/roofline.h), derived by hand on a
// two-layer network and a made-up GPU with round figures.
#include "model/network/roofline.h"

#include "network_fixtures.h"

#include <gtest/gtest.h>

namespace gcu::model::net {
namespace {

// GPU: 100 TFLOP/s (every precision, though the first test's FP32 case uses 10), 1 TB/s;
// the two-layer network of network_fixtures.h.
hw::Gpu test_gpu() {
  hw::Gpu g = testing::round_gpu("test-gpu", 100e12, 1e12);
  g.fp32_flops = 10e12;
  g.tf32_flops = 0;
  return g;
}

Network two_layers() { return testing::two_layer_network(); }

RooflineOptions options() {
  RooflineOptions o;
  o.batch_size = 10;
  o.mfu = 0.5;
  o.memory_efficiency = 0.8;
  o.launch_s = 5e-6;
  return o;
}

TEST(Roofline, HandDerivedTwoLayers) {
  const RooflineResult r = roofline_compute(two_layers(), test_gpu(), options());
  // A backward: 2e10 FLOP / (100e12 x 0.5) = 400 us > (1e7 + 1e6) x 2 B / 0.8e12 = 27.5 us: compute-bound,
  //   + 3 x 5 us = 415 us. B backward: 8e5 FLOP / 5e13 = 0.016 us < 4e6 x 2 B / 0.8e12 = 10 us: memory-bound,
  //   + 2 x 5 us = 20 us.
  EXPECT_NEAR(r.compute.backward_s, 435e-6, 1e-12);
  EXPECT_EQ(r.compute_bound_layers, 1);
  EXPECT_EQ(r.memory_bound_layers, 1);
  // A forward: 1e10 / 5e13 = 200 us (> (0.5e7 + 0.5e6) x 2 / 0.8e12 = 13.75 us) + 5 us; B: 2e6 x 2 / 0.8e12 = 5 us + 5 us.
  EXPECT_NEAR(r.compute.forward_s, 215e-6, 1e-12);
  // AdamW: 1,002,000 parameters x 28 B / 0.8e12 = 35.07 us + 8 ops x one chunk of <= 36 tensors x 5 us = 40 us.
  EXPECT_NEAR(r.compute.optimizer_s, 1'002'000 * 28 / 0.8e12 + 40e-6, 1e-12);
  // Backward order: b.bias, b.weight (ready when B's backward ends, 20 us), a.weight (435 us).
  ASSERT_EQ(r.compute.ready_s.size(), 3u);
  EXPECT_NEAR(r.compute.ready_s[0], 20e-6, 1e-12);
  EXPECT_NEAR(r.compute.ready_s[1], 20e-6, 1e-12);
  EXPECT_NEAR(r.compute.ready_s[2], 435e-6, 1e-12);
  // Model FLOPs 10 x (1e9 + 2e9 + 8e4) over 650 us at 100 TFLOP/s.
  EXPECT_NEAR(r.achieved_mfu, 10 * (3e9 + 8e4) / 650e-6 / 100e12, 1e-9);
  EXPECT_NE(r.basis.find("roofline estimate"), std::string::npos);
}

TEST(Roofline, StepTimeSplitByShares) {
  RooflineOptions o = options();
  const RooflineResult est = roofline_compute(two_layers(), test_gpu(), o);
  const double total = est.compute.forward_s + est.compute.backward_s + est.compute.optimizer_s;
  o.step_time_s = 2 * total;
  const RooflineResult r = roofline_compute(two_layers(), test_gpu(), o);
  EXPECT_NEAR(r.compute.forward_s + r.compute.backward_s + r.compute.optimizer_s, 2 * total, 1e-12);
  EXPECT_NEAR(r.compute.backward_s, 2 * est.compute.backward_s, 1e-12);
  EXPECT_NEAR(r.compute.ready_s[0], 2 * est.compute.ready_s[0], 1e-12);
  EXPECT_NE(r.basis.find("--step-time"), std::string::npos);
}

TEST(Roofline, Fp32IsSlowerAndRefusals) {
  RooflineOptions o = options();
  o.precision = Precision::FP32;
  const RooflineResult r = roofline_compute(two_layers(), test_gpu(), o);
  // A backward at 10 TFLOP/s x 0.5: 4 ms + 15 us.
  EXPECT_GT(r.compute.backward_s, 4e-3);
  o.precision = Precision::TF32;  // the test GPU has no TF32 rate
  EXPECT_THROW(roofline_compute(two_layers(), test_gpu(), o), NetworkError);
  o = options();
  o.mfu = 1.5;
  EXPECT_THROW(roofline_compute(two_layers(), test_gpu(), o), NetworkError);
  o = options();
  o.batch_size = 0;
  EXPECT_THROW(roofline_compute(two_layers(), test_gpu(), o), NetworkError);
  Network nowork = two_layers();
  nowork.has_work = false;
  EXPECT_THROW(roofline_compute(nowork, test_gpu(), options()), NetworkError);  // needs --step-time
  o = options();
  o.step_time_s = 1e-9;  // shorter than the optimizer alone
  EXPECT_THROW(roofline_compute(nowork, test_gpu(), o), NetworkError);
  o.step_time_s = 3e-3;
  const RooflineResult s = roofline_compute(nowork, test_gpu(), o);
  EXPECT_NEAR(s.compute.forward_s * 2, s.compute.backward_s, 1e-15);
  EXPECT_TRUE(s.compute.ready_s.empty());  // proportional to parameter counts (iteration.h)
}

TEST(Roofline, DdpMemory) {
  // AdamW, bf16: 4 (FP32 weights) + 4 (gradients) + 8 (moments) + 2 (bf16 copy) bytes per parameter.
  EXPECT_DOUBLE_EQ(ddp_memory_bytes(two_layers(), Precision::BF16, Optimizer::AdamW), 1'002'000.0 * 18);
  EXPECT_DOUBLE_EQ(ddp_memory_bytes(two_layers(), Precision::FP32, Optimizer::Sgd), 1'002'000.0 * 12);
}

}  // namespace
}  // namespace gcu::model::net
