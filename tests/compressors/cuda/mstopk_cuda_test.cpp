// "mstopk" on the GPU against the CPU (compressors/cuda/mstopk.cu): the same binary
// search and band rule; the mean of |x| is summed in another order, which can move a
// threshold by one float ulp, so a few elements near a threshold may differ.
#include "cuda_test_util.h"

#include <limits>

using namespace gcu::compress;
using namespace gcu::cuda::test;

TEST(MstopkCuda, MatchesCpu) {
  GCU_REQUIRE_GPU();
  const Tolerance tol{0, 0, 1e-4, -1};
  expect_parity("mstopk:k=0.01", BucketLayout::flat(100000), 3, tol);
  expect_parity("mstopk:k=0.1,iters=5", BucketLayout{{{300, 41}, {77}}}, 2, tol);
  expect_parity("mstopk:k=1", BucketLayout::flat(9), 2, Tolerance{});
}

TEST(MstopkCuda, NonFiniteFallsBackToExactTopk) {
  GCU_REQUIRE_GPU();
  std::vector<float> x = make_gradient(5000, 2);
  x[10] = std::numeric_limits<float>::infinity();
  const auto layout = BucketLayout::flat(5000);
  expect_close(run_roundtrip("mstopk:k=0.01", Device::CUDA, layout, x),
               run_roundtrip("mstopk:k=0.01", Device::CPU, layout, x), Tolerance{}, "mstopk with Inf");
}
