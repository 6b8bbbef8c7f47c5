// A measured profile's compute moved to another GPU layer by layer (model/network/move.h):
// a hand-derived two-layer case, the identity move, and the shipped V100 ResNet-50 moved.
#include "model/network/move.h"

#include "model/hardware.h"
#include "model/profile_json.h"
#include "network_fixtures.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace gcu::model::net {
namespace {

hw::Gpu move_gpu(const char* name, double flops, double membw) { return testing::round_gpu(name, flops, membw); }

// The two-layer network of network_fixtures.h (as roofline_test.cpp's).
Network move_two_layers() { return testing::two_layer_network(); }

Model move_measured() {
  Model m;
  m.name = "two-layers";
  m.tensors = move_two_layers().tensors_backward();  // b.bias, b.weight, a.weight
  m.parameters = 1'002'000;
  ComputeEntry e;
  e.batch_size = 10;
  e.forward_s = 300e-6;
  e.backward_s = 520e-6;
  e.optimizer_s = 100e-6;
  e.data_s = 7e-6;
  e.ready_s = {30e-6, 30e-6, 500e-6};
  m.compute = {e};
  return m;
}

MoveOptions move_options() {
  MoveOptions o;
  o.from_precision = o.to_precision = Precision::BF16;
  o.roofline.mfu = 0.5;
  o.roofline.memory_efficiency = 0.8;
  o.roofline.launch_s = 5e-6;
  return o;
}

TEST(Move, HandDerivedTwoLayers) {
  // from: 100 TFLOP/s, 1 TB/s; to: 300 TFLOP/s, 2 TB/s; batch 10, 2-byte activations.
  // Roofline backward on `from`: A 400 + 15 = 415 us (compute-bound), B 10 + 10 = 20 us (memory-bound);
  // on `to`: A 133.33 + 15 = 148.33 us, B 5 + 10 = 15 us.
  // Measured intervals: B 30 us -> 30 x 15/20 = 22.5 us; A 470 us -> 470 x 148.33/415;
  // the 20 us after the last gradient x (163.33 / 435).
  const MovedCompute r = move_compute(move_measured(), move_two_layers(), move_gpu("from", 100e12, 1e12), move_gpu("to", 300e12, 2e12),
                                      move_options());
  ASSERT_EQ(r.compute.size(), 1u);
  const ComputeEntry& c = r.compute[0];
  const double a_to = 2e10 / (300e12 * 0.5) + 15e-6;
  const double ready_a = 22.5e-6 + 470e-6 * a_to / 415e-6;
  EXPECT_NEAR(c.ready_s[0], 22.5e-6, 1e-12);
  EXPECT_NEAR(c.ready_s[1], 22.5e-6, 1e-12);
  EXPECT_NEAR(c.ready_s[2], ready_a, 1e-12);
  EXPECT_NEAR(c.backward_s, ready_a + 20e-6 * (a_to + 15e-6) / 435e-6, 1e-12);
  // Forward: from A 200 + 5, B 5 + 5 = 215 us; to A 66.67 + 5, B 2.5 + 5 us.
  EXPECT_NEAR(c.forward_s, 300e-6 * (1e10 / 1.5e14 + 5e-6 + 7.5e-6) / 215e-6, 1e-12);
  EXPECT_NEAR(c.optimizer_s, 50e-6, 1e-12);  // memory bandwidth x2
  EXPECT_DOUBLE_EQ(c.data_s, 7e-6);
  EXPECT_EQ(r.compute_bound_layers, 1);
  EXPECT_EQ(r.memory_bound_layers, 1);
}

TEST(Move, SameGpuIsTheIdentity) {
  const hw::Gpu g = move_gpu("same", 100e12, 1e12);
  const Model model = move_measured();
  const MovedCompute r = move_compute(model, move_two_layers(), g, g, move_options());
  const ComputeEntry& c = r.compute[0];
  const ComputeEntry& m = model.compute[0];
  EXPECT_NEAR(c.backward_s, m.backward_s, 1e-15);
  EXPECT_NEAR(c.forward_s, m.forward_s, 1e-15);
  for (size_t i = 0; i < m.ready_s.size(); ++i) EXPECT_NEAR(c.ready_s[i], m.ready_s[i], 1e-15);
}

TEST(Move, RefusesAnotherNetworksTensors) {
  Network other = move_two_layers();
  other.layers[0].params[0].shape = {1000, 999};
  try {
    move_compute(move_measured(), other, move_gpu("f", 1e14, 1e12), move_gpu("t", 1e14, 1e12), move_options());
    FAIL() << "moved through a network without the profile's tensors";
  } catch (const NetworkError& e) {
    EXPECT_NE(std::string(e.what()).find("a.weight [1000x1000]"), std::string::npos) << e.what();
  }
}

TEST(Move, ShippedResNet50ToH100) {
  const std::string dir = std::string(GCU_SOURCE_DIR) + "/data";
  std::ifstream f(dir + "/profiles/v100-resnet50.json");
  std::stringstream text;
  text << f.rdbuf();
  const Profile p = profile_from_string(text.str());
  const hw::Catalog cat = hw::load_catalog(dir + "/hardware");
  const hw::Gpu& from = gpu_named_in(cat, p.provenance.device);
  EXPECT_EQ(from.name, "v100-sxm2");
  EXPECT_EQ(gpu_named_in(cat, "NVIDIA H100 80GB HBM3").name, "h100-sxm");
  EXPECT_THROW(gpu_named_in(cat, "a 2-core VM"), hw::HardwareError);
  MoveOptions o;  // fp32 on both
  const MovedCompute r = move_compute(p.model, make_network("resnet50"), from, cat.gpu("h100-sxm"), o);
  ASSERT_EQ(r.compute.size(), p.model.compute.size());
  for (size_t e = 0; e < r.compute.size(); ++e) {
    // Between the FP32 peak ratio (67 / 15.7 = 4.27) and the memory ratio (3350 / 900 = 3.72),
    // a little less where launches bound small layers.
    const double speedup = p.model.compute[e].backward_s / r.compute[e].backward_s;
    EXPECT_GT(speedup, 3.0) << e;
    EXPECT_LT(speedup, 4.27) << e;
    for (size_t k = 1; k < r.compute[e].ready_s.size(); ++k)
      EXPECT_GE(r.compute[e].ready_s[k], r.compute[e].ready_s[k - 1]);
  }
}

}  // namespace
}  // namespace gcu::model::net
