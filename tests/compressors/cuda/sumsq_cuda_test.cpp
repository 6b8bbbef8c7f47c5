// Issue 14 finding 1: qsgd's L2 norms and thc's RMS (saturation) are summed on the GPU in
// the CPU's order (compressors/sumsq.h, compressors/cuda/sumsq.cuh), so scales, levels
// and outputs are bit-identical to the CPU's, including segments of several chunks and
// the float overflow near 1e18 (NaN on both). tests/compressors/sumsq_test.cpp shows the
// same on the CPU by emulating the kernels' order.
#include "cuda_test_util.h"

#include <string>

using namespace gcu::compress;
using namespace gcu::cuda::test;

TEST(SumsqCuda, QsgdAndSaturatedThcAreBitIdenticalOverManySeeds) {
  GCU_REQUIRE_GPU();
  const BucketLayout layout{{{1}, {300, 41}, {70001}, {32769}}};  // several chunks per segment
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    const auto x = make_gradient(layout.numel(), 0, seed, 0.01f);
    for (const char* spec : {"qsgd", "qsgd:levels=7,bucket=5000", "thc:sat=2", "thc:sat=1,rot=0", "thc:sat=3,bits=2"}) {
      expect_same_bits(run_roundtrip(spec, Device::CUDA, layout, x), run_roundtrip(spec, Device::CPU, layout, x),
                       std::string(spec) + " seed " + std::to_string(seed));
    }
  }
  expect_parity("thc:sat=2", BucketLayout::flat(100000), 3, Tolerance{}, 2);
  expect_parity("qsgd:levels=15", BucketLayout{{{40000}, {3}}}, 2, Tolerance{}, 2);
}

TEST(SumsqCuda, FloatOverflowOfARunGivesNanLikeTheCpu) {
  GCU_REQUIRE_GPU();
  std::vector<float> x(4096, 1e18f);  // squares fit a float, 1024 of them do not
  for (const char* spec : {"qsgd", "thc:sat=2,rot=0", "thc"}) {
    const auto layout = BucketLayout::flat(4096);
    expect_same_bits(run_roundtrip(spec, Device::CUDA, layout, x), run_roundtrip(spec, Device::CPU, layout, x),
                     std::string(spec) + " at 1e18");
  }
}
