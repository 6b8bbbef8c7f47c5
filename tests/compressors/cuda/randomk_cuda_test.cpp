// "randomk" on the GPU against the CPU (compressors/cuda/randomk.cu): the same indices
// (same counter-based stream), hence identical results, step after step; checkpoints of
// the step counters are interchangeable.
#include "cuda_test_util.h"

#include "compressors/registry.h"

using namespace gcu::compress;
using namespace gcu::cuda::test;

TEST(RandomkCuda, MatchesCpuOverSteps) {
  GCU_REQUIRE_GPU();
  expect_parity("randomk:k=0.01", BucketLayout{{{500, 41}, {77}}}, 3, Tolerance{}, 3);
  expect_parity("randomk:k=0.3,seed=9,unbiased=true", BucketLayout::flat(1001), 2, Tolerance{}, 2);
  expect_parity("randomk:k=1", BucketLayout::flat(5), 2, Tolerance{});
}

TEST(RandomkCuda, StateMovesBetweenCpuAndGpu) {
  // No device memory is touched: save/load of counters only.
  auto cpu = make_compressor("randomk:k=0.1", Device::CPU);
  auto gpu = make_compressor("randomk:k=0.1", Device::CUDA);
  std::vector<float> x(100, 1.0f), y(100);
  const auto layout = BucketLayout::flat(100);
  cpu->roundtrip(4, x.data(), y.data(), layout);
  gpu->load_state(cpu->save_state());
  EXPECT_EQ(gpu->save_state(), cpu->save_state());
}
