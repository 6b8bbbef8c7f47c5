// "thc" on the GPU against the CPU (compressors/cuda/thc.cu): the rotation applies the
// same butterfly stages in the same order with the same float operations, and the RMS of
// saturation is summed in the CPU's order (sumsq.h), so results are bit-identical.
#include "cuda_test_util.h"

#include <limits>

using namespace gcu::compress;
using namespace gcu::cuda::test;

TEST(ThcCuda, MatchesCpu) {
  GCU_REQUIRE_GPU();
  expect_parity("thc", BucketLayout{{{300, 41}, {77}}}, 3, Tolerance{}, 2);                  // one padded block
  expect_parity("thc:bits=2,rot=3,block=1024", BucketLayout::flat(5000), 4, Tolerance{});  // partial rotation, 5 blocks
  expect_parity("thc:bits=8,block=8192,seed=2", BucketLayout::flat(20000), 2, Tolerance{}); // stages beyond a smem tile
  expect_parity("thc:rot=0", BucketLayout::flat(1000), 2, Tolerance{});                    // no rotation
  expect_parity("thc:sat=2", BucketLayout::flat(4096), 3, Tolerance{});
  expect_parity("thc:block=65536", BucketLayout::flat(140000), 2, Tolerance{});  // stages 11-15 fused
  expect_parity("thc", BucketLayout::flat(1), 2, Tolerance{});
}

TEST(ThcCuda, NonFiniteInputGivesNan) {
  GCU_REQUIRE_GPU();
  std::vector<float> x = make_gradient(3000, 1);
  x[5] = std::numeric_limits<float>::quiet_NaN();
  const auto layout = BucketLayout::flat(3000);
  expect_close(run_roundtrip("thc", Device::CUDA, layout, x), run_roundtrip("thc", Device::CPU, layout, x),
               Tolerance{}, "thc NaN");
}
