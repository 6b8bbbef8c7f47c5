// "qsgd" on the GPU against the CPU (compressors/cuda/qsgd.cu, levels.cu): the same
// random stream (rng.h) and the L2 norm summed in the CPU's order (sumsq.h) give the
// same levels and bytes.
#include "cuda_test_util.h"

#include <limits>

using namespace gcu::compress;
using namespace gcu::cuda::test;

TEST(QsgdCuda, MatchesCpu) {
  GCU_REQUIRE_GPU();
  const Tolerance tol{};  // exact (was rtol 1e-5 with 0.1% flipped levels before issue 14)
  expect_parity("qsgd", BucketLayout{{{300, 41}, {77}, {5, 5}}}, 3, tol, 3);       // 8-bit codes, per tensor
  expect_parity("qsgd:levels=1,bucket=100", BucketLayout::flat(10007), 2, tol);   // 2-bit codes
  expect_parity("qsgd:levels=7,seed=5", BucketLayout::flat(999), 4, tol);         // 4-bit codes
  expect_parity("qsgd:levels=1000", BucketLayout::flat(5000), 2, tol);            // 16-bit codes
}

TEST(QsgdCuda, ZeroAndNonFiniteSegments) {
  GCU_REQUIRE_GPU();
  const auto layout = BucketLayout{{{100}, {100}}};
  std::vector<float> x = make_gradient(200, 0);
  for (int i = 0; i < 100; ++i) x[i] = 0.0f;  // first tensor: zero norm
  expect_close(run_roundtrip("qsgd", Device::CUDA, layout, x), run_roundtrip("qsgd", Device::CPU, layout, x),
               Tolerance{1e-7, 1e-5, 0, -1}, "qsgd zero segment");
  x[150] = std::numeric_limits<float>::quiet_NaN();
  expect_close(run_roundtrip("qsgd", Device::CUDA, layout, x), run_roundtrip("qsgd", Device::CPU, layout, x),
               Tolerance{}, "qsgd NaN input");
}
