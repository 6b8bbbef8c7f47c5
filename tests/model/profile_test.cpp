// Compute-table lookup with interpolation/extrapolation (model/profile.h).
#include "model/profile.h"

#include <gtest/gtest.h>

namespace gcu::model {
namespace {

Model two_entries() {
  Model m;
  m.name = "m";
  m.tensors = {{"a", {10}}, {"b", {2, 5}}};
  m.compute.push_back({64, 0.018, 0.036, 0.003, 0.001, {0.010, 0.036}});
  m.compute.push_back({32, 0.010, 0.020, 0.002, 0.0, {}});
  return m;
}

TEST(Profile, NumelAndKeys) {
  Model m = two_entries();
  EXPECT_EQ(m.numel(), 20);
  EXPECT_EQ(TensorInfo({"s", {}}).numel(), 1);
  EXPECT_STREQ(collective_key(compress::CollectiveKind::ReduceScatter), "reducescatter");
  Cluster c;
  c.nodes = 3;
  c.gpus_per_node = 4;
  EXPECT_EQ(c.world(), 12);
}

TEST(Profile, ExactEntry) {
  auto c = compute_for_batch(two_entries(), 32);
  EXPECT_TRUE(c.exact);
  EXPECT_DOUBLE_EQ(c.compute.backward_s, 0.020);
}

TEST(Profile, InterpolatesBetweenEntries) {
  // batch 48 is halfway between 32 and 64: forward (0.010+0.018)/2, backward 0.028.
  auto c = compute_for_batch(two_entries(), 48);
  EXPECT_FALSE(c.exact);
  EXPECT_NEAR(c.compute.forward_s, 0.014, 1e-15);
  EXPECT_NEAR(c.compute.backward_s, 0.028, 1e-15);
  EXPECT_NEAR(c.compute.optimizer_s, 0.0025, 1e-15);
  EXPECT_NE(c.note.find("interpolated"), std::string::npos);
  // ready_s from the nearest entry that has them (64), scaled by 0.028/0.036.
  ASSERT_EQ(c.compute.ready_s.size(), 2u);
  EXPECT_NEAR(c.compute.ready_s[1], 0.028, 1e-15);
  EXPECT_NEAR(c.compute.ready_s[0], 0.010 * 0.028 / 0.036, 1e-15);
}

TEST(Profile, ExtrapolatesLinearlyForWeakScaling) {
  // batch 128: backward 0.036 + (0.036-0.020)/32 * 64 = 0.068.
  auto c = compute_for_batch(two_entries(), 128);
  EXPECT_FALSE(c.exact);
  EXPECT_NEAR(c.compute.backward_s, 0.068, 1e-15);
  EXPECT_NE(c.note.find("extrapolated"), std::string::npos);
  // Never negative when extrapolating down.
  auto d = compute_for_batch(two_entries(), 1);
  EXPECT_GE(d.compute.data_s, 0.0);
}

TEST(Profile, OneEntryScalesProportionally) {
  Model m;
  m.compute.push_back({32, 0.010, 0.020, 0.002, 0.004, {}});
  auto c = compute_for_batch(m, 64);
  EXPECT_DOUBLE_EQ(c.compute.backward_s, 0.040);
  EXPECT_DOUBLE_EQ(c.compute.forward_s, 0.020);
  EXPECT_DOUBLE_EQ(c.compute.data_s, 0.008);
  EXPECT_DOUBLE_EQ(c.compute.optimizer_s, 0.002);  // does not grow with the batch
}

TEST(Profile, Errors) {
  EXPECT_THROW(compute_for_batch(Model{}, 32), ModelError);
  EXPECT_THROW(compute_for_batch(two_entries(), 0), ModelError);
}

}  // namespace
}  // namespace gcu::model
