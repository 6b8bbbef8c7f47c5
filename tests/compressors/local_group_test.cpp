#include "compressors/local_group.h"
#include "compressors/half.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace gcu::compress;

TEST(LocalGroup, AllReduceSumsFloatsAndIntegers) {
  LocalGroup g(4);
  g.run([](Communicator& c) {
    std::vector<float> f{1.0f * c.rank(), 1.0f};
    c.all_reduce(f.data(), 2, WireType::F32, ReduceOp::Sum);
    EXPECT_FLOAT_EQ(f[0], 6.0f);
    EXPECT_FLOAT_EQ(f[1], 4.0f);
    std::vector<int8_t> i{static_cast<int8_t>(c.rank() - 1)};
    c.all_reduce(i.data(), 1, WireType::I8, ReduceOp::Max);
    EXPECT_EQ(i[0], 2);
  });
}

TEST(LocalGroup, AllGatherIsRankMajor) {
  LocalGroup g(3);
  g.run([](Communicator& c) {
    int32_t mine[2] = {c.rank(), 10 * c.rank()};
    int32_t all[6] = {};
    c.all_gather(mine, all, 2, WireType::I32);
    for (int r = 0; r < 3; ++r) {
      EXPECT_EQ(all[2 * r], r);
      EXPECT_EQ(all[2 * r + 1], 10 * r);
    }
  });
}

TEST(LocalGroup, BroadcastFromRoot) {
  LocalGroup g(2);
  g.run([](Communicator& c) {
    float v = c.rank() == 1 ? 7.0f : 0.0f;
    c.broadcast(&v, 1, WireType::F32, 1);
    EXPECT_EQ(v, 7.0f);
  });
}

TEST(LocalGroup, AFailingRankReleasesTheOthers) {
  LocalGroup g(3);
  EXPECT_THROW(g.run([](Communicator& c) {
                 if (c.rank() == 1) throw std::runtime_error("rank 1 died");
                 float v = 1;
                 c.all_reduce(&v, 1, WireType::F32, ReduceOp::Sum);
               }),
               std::runtime_error);
  // The group is usable again afterwards.
  g.run([](Communicator& c) {
    float v = 1;
    c.all_reduce(&v, 1, WireType::F32, ReduceOp::Sum);
    EXPECT_EQ(v, 3.0f);
  });
}

TEST(Half, RoundTripsAndRoundsToNearestEven) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f})
    EXPECT_EQ(half_to_float(float_to_half(f)), f) << f;
  EXPECT_TRUE(std::isinf(half_to_float(float_to_half(1e6f))));
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(NAN))));
  EXPECT_EQ(half_to_float(float_to_half(1.0f + 1.0f / 4096)), 1.0f);  // tie -> even
  EXPECT_EQ(bf16_to_float(float_to_bf16(1.0f)), 1.0f);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(NAN))));
}
