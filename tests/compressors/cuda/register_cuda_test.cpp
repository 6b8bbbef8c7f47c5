// Registration of the CUDA schemes (compressors/cuda/register_cuda.cpp). These tests need
// no GPU: building a CUDA compressor and asking for its plan touch no device memory.
#include "compressors/registry.h"

#include <gtest/gtest.h>

using namespace gcu::compress;

namespace {
// Layouts that exercise vectors, matrices, odd sizes and an empty bucket.
std::vector<BucketLayout> layouts() {
  return {BucketLayout::flat(1000), BucketLayout{{{64, 33}, {17}, {5, 3, 3}}},
          BucketLayout::flat(1), BucketLayout::flat(0)};
}
}  // namespace

TEST(RegisterCuda, NoneHasACudaVersion) {
  EXPECT_TRUE(Registry::instance().find("none").cuda);
  EXPECT_EQ(make_compressor("none", Device::CUDA)->device(), Device::CUDA);
}

TEST(RegisterCuda, CudaPlansAndSpecsEqualTheCpuOnes) {
  int with_cuda = 0;
  for (const auto& s : Registry::instance().list()) {
    if (!s.cuda) continue;
    ++with_cuda;
    auto cpu = make_compressor(s.name, Device::CPU);
    auto gpu = make_compressor(s.name, Device::CUDA);
    EXPECT_EQ(gpu->spec(), cpu->spec()) << s.name;
    EXPECT_EQ(gpu->device(), Device::CUDA) << s.name;
    for (const auto& l : layouts())
      for (int p : {1, 3, 8}) {
        const auto a = cpu->plan(l, p), b = gpu->plan(l, p);
        ASSERT_EQ(a.size(), b.size()) << s.name;
        for (size_t i = 0; i < a.size(); ++i) {
          EXPECT_EQ(a[i].kind, b[i].kind) << s.name << " call " << i;
          EXPECT_EQ(a[i].type, b[i].type) << s.name << " call " << i;
          EXPECT_EQ(a[i].count, b[i].count) << s.name << " call " << i;
        }
        EXPECT_EQ(gpu->wire_bytes(l, p), cpu->wire_bytes(l, p)) << s.name;
      }
  }
  EXPECT_GE(with_cuda, 1);
}

TEST(RegisterCuda, BadParametersAreRejectedAsOnTheCpu) {
  EXPECT_THROW(make_compressor("none:k=0.1", Device::CUDA), CompressorError);
}

TEST(RegisterCuda, EverySchemeHasACudaVersion) {
  for (const auto& s : Registry::instance().list()) EXPECT_TRUE(s.cuda) << s.name << " has no CUDA version";
}
