// "topkc" on the GPU against the CPU (compressors/cuda/topkc.cu): chunk norms are summed
// in the same order (bit-identical), so the same chunks are agreed and results match.
#include "cuda_test_util.h"

using namespace gcu::compress;
using namespace gcu::cuda::test;

TEST(TopkcCuda, MatchesCpu) {
  GCU_REQUIRE_GPU();
  expect_parity("topkc:k=0.05,chunk=64", BucketLayout{{{300, 41}, {77}}}, 3, Tolerance{});  // partial last chunk
  expect_parity("topkc:k=0.5,chunk=100", BucketLayout::flat(1050), 2, Tolerance{});
  expect_parity("topkc:k=1,chunk=256", BucketLayout::flat(1000), 2, Tolerance{});          // every chunk
  expect_parity("topkc:k=0.01,chunk=256", BucketLayout::flat(10), 2, Tolerance{});         // n < chunk
}
