// Issue 14 finding 2: schemes with per-layout device tables (levels.cu for qsgd and
// terngrad, powersgd.cu's matrix table) cache one entry per layout. Two buckets of
// different layouts, alternating for several steps as in multi-bucket training, must
// give the CPU's results at every step (a single cached layout re-uploaded on every
// bucket, or worse, one used for the wrong bucket, shows here).
#include "cuda_test_util.h"

#include "compressors/cuda/device_array.h"
#include "compressors/registry.h"

#include <cuda_runtime_api.h>

#include <string>

using namespace gcu::compress;
using namespace gcu::cuda::test;

namespace {
// Bucket 0 and bucket 1 alternate for `steps` roundtrips on one compressor per device.
void expect_alternating(const std::string& spec, const BucketLayout& a, const BucketLayout& b, const Tolerance& tol,
                        bool bits) {
  auto cpu = make_compressor(spec, Device::CPU);
  auto gpu = make_compressor(spec, Device::CUDA);
  const BucketLayout* layouts[2] = {&a, &b};
  for (int step = 0; step < 6; ++step) {
    const int which = step % 2;
    const BucketLayout& L = *layouts[which];
    const auto x = make_gradient(L.numel(), which, static_cast<uint32_t>(step + 1));
    std::vector<float> yc(x.size());
    cpu->roundtrip(which, x.data(), yc.data(), L);
    gcu::cuda::DeviceArray<float> din(x.size()), dout(x.size());
    din.upload(x.data(), x.size());
    gpu->roundtrip(which, din.get(), dout.get(), L);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto yg = dout.download(x.size());
    const std::string what = spec + " step " + std::to_string(step) + " bucket " + std::to_string(which);
    if (bits) expect_same_bits(yg, yc, what);
    else expect_close(yg, yc, tol, what);
  }
}
}  // namespace

TEST(LayoutsCuda, TwoBucketsOfDifferentLayoutsAlternate) {
  GCU_REQUIRE_GPU();
  const BucketLayout a{{{64, 33}, {17}, {5, 3, 3}}}, b{{{1000}, {20, 20}}};
  expect_alternating("qsgd", a, b, Tolerance{}, true);
  expect_alternating("terngrad", a, b, Tolerance{}, true);
  expect_alternating("qsgd:bucket=100", a, b, Tolerance{}, true);
  expect_alternating("thc:sat=2", a, b, Tolerance{}, true);
  expect_alternating("powersgd:rank=2", a, b, Tolerance{0, 0, 0, 1e-4}, false);
}
