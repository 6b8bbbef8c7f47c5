// "dgc" on the GPU against the CPU (compressors/cuda/dgc.cu): same samples, same
// threshold, same selection (exact top-K or all passing elements + zero padding).
#include "cuda_test_util.h"

using namespace gcu::compress;
using namespace gcu::cuda::test;

TEST(DgcCuda, MatchesCpuOverSteps) {
  GCU_REQUIRE_GPU();
  // Threshold from a small sample: sometimes fewer than K pass (padding), sometimes more.
  expect_parity("dgc:k=0.01,sample=0.01", BucketLayout::flat(50000), 3, Tolerance{}, 3);
  expect_parity("dgc:k=0.05,sample=0.2,seed=4", BucketLayout{{{300, 41}, {77}}}, 2, Tolerance{}, 3);
  expect_parity("dgc:k=0.5,sample=1", BucketLayout::flat(7), 2, Tolerance{});
}

TEST(DgcCuda, AllZeroBucket) {
  GCU_REQUIRE_GPU();
  const std::vector<float> x(3000, 0.0f);
  const auto layout = BucketLayout::flat(3000);
  expect_close(run_roundtrip("dgc:k=0.01", Device::CUDA, layout, x),
               run_roundtrip("dgc:k=0.01", Device::CPU, layout, x), Tolerance{}, "dgc zeros");
}
