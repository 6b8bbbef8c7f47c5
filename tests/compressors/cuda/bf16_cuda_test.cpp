// "bf16" on the GPU against the CPU (compressors/cuda/bf16.cu): bit-identical results.
#include "cuda_test_util.h"

#include <limits>

using namespace gcu::compress;
using namespace gcu::cuda::test;

TEST(Bf16Cuda, MatchesCpuExactly) {
  GCU_REQUIRE_GPU();
  expect_parity("bf16", BucketLayout{{{129, 31}, {7}}}, 3, Tolerance{});
}

TEST(Bf16Cuda, EdgeValuesRoundLikeTheCpu) {
  GCU_REQUIRE_GPU();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {0.0f, -0.0f, 3.0e38f, 3.4e38f, 1e-39f, 1e-8f, -3e-5f, 6.1e-5f,
                          inf, -inf, std::numeric_limits<float>::quiet_NaN(), 1.0f / 3.0f};
  const auto layout = BucketLayout::flat(static_cast<int64_t>(x.size()));
  expect_close(run_roundtrip("bf16", Device::CUDA, layout, x), run_roundtrip("bf16", Device::CPU, layout, x),
               Tolerance{}, "bf16 roundtrip of edge values");
  const auto cpu = run_step("bf16", Device::CPU, layout, {x, x});
  const auto gpu = run_step("bf16", Device::CUDA, layout, {x, x});
  expect_close(gpu[1], cpu[1], Tolerance{}, "bf16 step of edge values");
}
