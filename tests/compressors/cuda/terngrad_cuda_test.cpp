// "terngrad" on the GPU against the CPU (compressors/cuda/levels.cu): max-norm scales are
// exact, so the ternary codes and the decode are identical.
#include "cuda_test_util.h"

using namespace gcu::compress;
using namespace gcu::cuda::test;

TEST(TernGradCuda, MatchesCpu) {
  GCU_REQUIRE_GPU();
  expect_parity("terngrad", BucketLayout{{{300, 41}, {77}}}, 3, Tolerance{}, 3);
  expect_parity("terngrad:bucket=512,seed=3", BucketLayout::flat(100000), 2, Tolerance{});
}
