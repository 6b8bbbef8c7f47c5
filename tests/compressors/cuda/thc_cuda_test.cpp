// "thc" on the GPU against the CPU (compressors/cuda/thc.cu): the rotation applies the
// same butterfly stages in the same order with the same float operations, so results are
// bit-identical without saturation; with saturation the RMS may move R by an ulp.
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
  expect_parity("thc:sat=2", BucketLayout::flat(4096), 3, Tolerance{1e-6, 1e-4, 1e-3, -1});
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
