// "none" on the GPU against the CPU (compressors/cuda/none.cu).
#include "cuda_test_util.h"

using namespace gcu::compress;
using namespace gcu::cuda::test;

TEST(NoneCuda, MatchesCpuExactly) {
  GCU_REQUIRE_GPU();
  expect_parity("none", BucketLayout{{{300, 7}, {13}}}, 3, Tolerance{});
}

TEST(NoneCuda, EmptyBucket) {
  GCU_REQUIRE_GPU();
  expect_parity("none", BucketLayout::flat(0), 2, Tolerance{});
}
