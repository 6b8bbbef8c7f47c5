// "topk" on the GPU against the CPU (compressors/cuda/topk.cu and sparse.cu): the same
// selected set (ties to the lowest index) and the same decode.
#include "cuda_test_util.h"

#include <limits>

using namespace gcu::compress;
using namespace gcu::cuda::test;

TEST(TopkCuda, MatchesCpuOnRandomGradients) {
  GCU_REQUIRE_GPU();
  expect_parity("topk:k=0.01", BucketLayout{{{1000, 37}, {999}}}, 3, Tolerance{});
  expect_parity("topk:k=0.3", BucketLayout::flat(4097), 2, Tolerance{});
}

TEST(TopkCuda, TiesZerosTinyAndLargeBuckets) {
  GCU_REQUIRE_GPU();
  // All-zero and constant buckets: every key ties; the lowest indices must win.
  for (float v : {0.0f, 1.5f}) {
    const std::vector<float> x(10000, v);
    const auto layout = BucketLayout::flat(10000);
    expect_close(run_roundtrip("topk:k=0.05", Device::CUDA, layout, x),
                 run_roundtrip("topk:k=0.05", Device::CPU, layout, x), Tolerance{}, "topk ties");
  }
  expect_parity("topk:k=1", BucketLayout::flat(3), 2, Tolerance{});
  expect_parity("topk:k=0.001", BucketLayout::flat(1), 2, Tolerance{});
  expect_parity("topk:k=0.001", BucketLayout::flat(3'000'001), 2, Tolerance{}, 1);
}

TEST(TopkCuda, NanAndInfAreSelectedFirst) {
  GCU_REQUIRE_GPU();
  std::vector<float> x = make_gradient(5000, 0);
  x[17] = std::numeric_limits<float>::quiet_NaN();
  x[4000] = -std::numeric_limits<float>::infinity();
  const auto layout = BucketLayout::flat(5000);
  expect_close(run_roundtrip("topk:k=0.002", Device::CUDA, layout, x),
               run_roundtrip("topk:k=0.002", Device::CPU, layout, x), Tolerance{}, "topk NaN/Inf");
}
