// Error feedback on the GPU (compressors/cuda/error_feedback.cu) against the CPU wrapper:
// the residuals evolve identically over steps for schemes whose CUDA and CPU versions are
// bit-identical, and the checkpoint format is shared.
#include "cuda_test_util.h"

#include "compressors/registry.h"

using namespace gcu::compress;
using namespace gcu::cuda::test;

TEST(ErrorFeedbackCuda, BuiltByMakeCompressorWithoutADevice) {
  auto gpu = make_compressor("ef(topk:k=0.1)", Device::CUDA);
  auto cpu = make_compressor("ef(topk:k=0.1)", Device::CPU);
  EXPECT_EQ(gpu->device(), Device::CUDA);
  EXPECT_EQ(gpu->spec(), cpu->spec());
  EXPECT_TRUE(gpu->traits().error_feedback);
  EXPECT_EQ(gpu->wire_bytes(BucketLayout::flat(1000), 4), cpu->wire_bytes(BucketLayout::flat(1000), 4));
  gpu->load_state(cpu->save_state());
  EXPECT_EQ(gpu->save_state(), cpu->save_state());
}

TEST(ErrorFeedbackCuda, MatchesCpuOverSteps) {
  GCU_REQUIRE_GPU();
  expect_parity("ef(topk:k=0.05)", BucketLayout{{{300, 41}, {77}}}, 3, Tolerance{}, 4);
  expect_parity("ef(randomk:k=0.1)", BucketLayout::flat(5000), 2, Tolerance{}, 3);
  expect_parity("ef(terngrad)", BucketLayout::flat(3000), 2, Tolerance{}, 3);
  expect_parity("ef(powersgd:rank=2)", BucketLayout{{{64, 32}, {32}}}, 2, Tolerance{0, 0, 0, 1e-4}, 3);
}
