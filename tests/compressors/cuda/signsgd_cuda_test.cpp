// "signsgd" on the GPU against the CPU (compressors/cuda/signsgd.cu): identical votes;
// the scale (mean |g|, summed in another order) agrees to float rounding.
#include "cuda_test_util.h"

#include <limits>

using namespace gcu::compress;
using namespace gcu::cuda::test;

TEST(SignSgdCuda, MatchesCpu) {
  GCU_REQUIRE_GPU();
  const Tolerance tol{0, 1e-5, 0, -1};
  expect_parity("signsgd", BucketLayout{{{100, 33}, {70}}}, 3, tol);  // n not a multiple of 64
  expect_parity("signsgd", BucketLayout::flat(64 * 1000), 4, tol);    // even p: ties give 0
  expect_parity("signsgd:scaled=false", BucketLayout::flat(1001), 5, Tolerance{});
  expect_parity("signsgd", BucketLayout::flat(1), 2, tol);
}

TEST(SignSgdCuda, NonFiniteInputGivesNanEverywhereAsOnTheCpu) {
  GCU_REQUIRE_GPU();
  const auto layout = BucketLayout::flat(300);
  std::vector<float> a = make_gradient(300, 0), b = make_gradient(300, 1);
  b[7] = std::numeric_limits<float>::infinity();
  const auto cpu = run_step("signsgd", Device::CPU, layout, {a, b});
  const auto gpu = run_step("signsgd", Device::CUDA, layout, {a, b});
  expect_close(gpu[0], cpu[0], Tolerance{}, "signsgd with Inf on rank 1");
}
