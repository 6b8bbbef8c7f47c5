// "efsignsgd" on the GPU against the CPU (compressors/cuda/signsgd.cu): the residuals
// evolve the same way over steps (scales agree to float rounding; an element whose
// compensated value lies within that rounding of 0 may take the other sign, hence a small
// mismatch allowance), and the state format is shared.
#include "cuda_test_util.h"

#include "compressors/registry.h"

using namespace gcu::compress;
using namespace gcu::cuda::test;

TEST(EfSignSgdCuda, MatchesCpuOverSteps) {
  GCU_REQUIRE_GPU();
  const Tolerance tol{1e-6, 1e-4, 2e-3, -1};
  expect_parity("efsignsgd", BucketLayout{{{100, 33}, {70}}}, 3, tol, 4);
  expect_parity("efsignsgd", BucketLayout::flat(64 * 50), 2, tol, 2);
}

TEST(EfSignSgdCuda, EmptyStateRoundTripsWithoutADevice) {
  auto gpu = make_compressor("efsignsgd", Device::CUDA);
  gpu->load_state(make_compressor("efsignsgd", Device::CPU)->save_state());
  EXPECT_EQ(gpu->save_state(), make_compressor("efsignsgd", Device::CPU)->save_state());
  EXPECT_THROW(gpu->load_state({1, 2, 3}), CompressorError);
}
