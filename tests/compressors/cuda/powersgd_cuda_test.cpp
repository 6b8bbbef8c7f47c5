// "powersgd" on the GPU against the CPU (compressors/cuda/powersgd.cu): cuBLAS and Eigen
// sum in different orders, so results agree to a small relative L2 difference; 1-D
// tensors go through the plain all-reduce and agree exactly; warm-start state is shared.
#include "cuda_test_util.h"

#include "compressors/registry.h"

using namespace gcu::compress;
using namespace gcu::cuda::test;

TEST(PowerSgdCuda, MatchesCpu) {
  GCU_REQUIRE_GPU();
  const Tolerance tol{0, 0, 0, 1e-4};
  expect_parity("powersgd:rank=4", BucketLayout{{{64, 3, 3, 3}, {64}, {128, 64}, {10}}}, 3, tol, 3);
  expect_parity("powersgd:rank=2,warm_start=false", BucketLayout{{{200, 100}}}, 2, tol, 2);
  expect_parity("powersgd:rank=1", BucketLayout{{{1000}}}, 2, Tolerance{});  // only a 1-D tensor
}

TEST(PowerSgdCuda, EmptyStateRoundTripsWithoutADevice) {
  auto gpu = make_compressor("powersgd", Device::CUDA);
  gpu->load_state(make_compressor("powersgd", Device::CPU)->save_state());
  EXPECT_EQ(gpu->save_state(), make_compressor("powersgd", Device::CPU)->save_state());
  EXPECT_THROW(gpu->load_state({1, 2, 3}), CompressorError);
}
