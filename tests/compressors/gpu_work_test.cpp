// Every scheme's declared CUDA kernel work (compressors/gpu_work.h): declared, positive,
// error feedback adds its passes, all-gather decodes grow with the world, and a few
// counts derived by hand from the .cu files.
#include "compressors/gpu_work.h"
#include "compressors/registry.h"

#include <gtest/gtest.h>

using namespace gcu::compress;

namespace {

BucketLayout gw_matrix(int64_t rows, int64_t cols) { return BucketLayout{{{rows, cols}}}; }

bool gw_gathers(const std::string& spec, const BucketLayout& l) {
  for (const auto& call : make_compressor(spec)->plan(l, 4))
    if (call.kind == CollectiveKind::AllGather) return true;
  return false;
}

}  // namespace

TEST(GpuWork, EveryRegisteredSchemeDeclaresPositiveWork) {
  const BucketLayout l = gw_matrix(1024, 1024);
  for (const auto& s : Registry::instance().list()) {
    SCOPED_TRACE(s.name);
    ASSERT_NE(s.facts.gpu_work, nullptr) << "declare .gpu_work in register_" << s.name << "()";
    const CodecWork w = gpu_work(s.name, l, 1);
    EXPECT_GT(w.encode.bytes + w.decode.bytes, 0);
    EXPECT_GT(w.encode.launches + w.decode.launches, 0);
    EXPECT_GE(w.encode.bytes, 0);
    EXPECT_GE(w.decode.bytes, 0);
    EXPECT_GT(roundtrip_work(s.name, l).bytes, 0);
  }
}

TEST(GpuWork, ErrorFeedbackAddsItsPasses) {
  const BucketLayout l = BucketLayout::flat(1 << 20);
  for (const std::string spec : {"topk:k=0.01", "signsgd", "powersgd:rank=4", "fp16"}) {
    SCOPED_TRACE(spec);
    const CodecWork x = gpu_work(spec, l, 4), ef = gpu_work("ef(" + spec + ")", l, 4);
    EXPECT_DOUBLE_EQ(ef.encode.bytes - x.encode.bytes, kEfEncodeWorkBytesPerElement * (1 << 20));
    EXPECT_DOUBLE_EQ(ef.decode.bytes - x.decode.bytes, kEfDecodeWorkBytesPerElement * (1 << 20));
    EXPECT_GT(ef.encode.launches, x.encode.launches);
    EXPECT_GT(ef.decode.launches, x.decode.launches);
  }
}

TEST(GpuWork, AllGatherDecodesGrowWithTheWorld) {
  const BucketLayout l = gw_matrix(1000, 1000);
  int gathering = 0;
  for (const auto& s : Registry::instance().list()) {
    const std::string spec = make_compressor(s.name)->spec();
    const CodecWork w1 = gpu_work(spec, l, 1), w8 = gpu_work(spec, l, 8);
    if (gw_gathers(spec, l)) {
      SCOPED_TRACE(spec);
      ++gathering;
      EXPECT_GT(w8.decode.bytes, w1.decode.bytes);
    } else if (s.name != "thc") {  // THC's lanes widen with the world; the others do not change
      EXPECT_DOUBLE_EQ(w8.decode.bytes, w1.decode.bytes) << spec;
    }
  }
  EXPECT_GE(gathering, 5);  // topk, mstopk, dgc, signsgd, efsignsgd, qsgd, terngrad
}

// By hand from the kernels (see each scheme's registration).
TEST(GpuWork, HandCounts) {
  const int64_t n = 1 << 20;
  const BucketLayout flat = BucketLayout::flat(n);
  // cast16.cu: 4 B in, 2 B out; 2 B in, 4 B out; one launch each.
  CodecWork w = gpu_work("fp16", flat, 8);
  EXPECT_DOUBLE_EQ(w.encode.bytes, 6.0 * n);
  EXPECT_DOUBLE_EQ(w.decode.bytes, 6.0 * n);
  EXPECT_DOUBLE_EQ(w.encode.launches + w.decode.launches, 2);
  // topk: 3 histogram passes + count + write (20 B/el) and K pairs; decode memset + per
  // rank 16 B per pair; 13 + 1 + p launches.
  const int64_t K = 10486;  // ceil(0.01 n)
  w = gpu_work("topk:k=0.01", flat, 4);
  EXPECT_DOUBLE_EQ(w.encode.bytes, 20.0 * n + 8.0 * K);
  EXPECT_DOUBLE_EQ(w.encode.launches, 13);
  EXPECT_DOUBLE_EQ(w.decode.bytes, 4.0 * n + 4 * 16.0 * K);
  EXPECT_DOUBLE_EQ(w.decode.launches, 5);
  EXPECT_FALSE(w.encode.minimum);
  EXPECT_TRUE(gpu_work("mstopk:k=0.01", flat, 1).encode.minimum);
  // PowerSGD on one 1024 x 1024 matrix, rank 4: 2 GEMMs in encode (2 m n r each), 1 in
  // decode; a 1-D tensor is copied in and out (step) and is no GEMM.
  w = gpu_work("powersgd:rank=4", gw_matrix(1024, 1024), 1);
  EXPECT_DOUBLE_EQ(w.encode.matmul_flops, 2 * 2.0 * n * 4);
  EXPECT_DOUBLE_EQ(w.decode.matmul_flops, 2.0 * n * 4);
  EXPECT_DOUBLE_EQ(w.roundtrip_extra.bytes, 8.0 * n);
  const CodecWork two = gpu_work("powersgd:rank=4", BucketLayout{{{1024, 1024}, {1024, 1024}}}, 1);
  EXPECT_DOUBLE_EQ(two.encode.launches - w.encode.launches, 2);  // one more matrix: 2 GEMMs
  EXPECT_DOUBLE_EQ(two.decode.launches - w.decode.launches, 1);
  const CodecWork vec = gpu_work("powersgd:rank=4", flat, 1);
  EXPECT_DOUBLE_EQ(vec.encode.matmul_flops, 0);
  EXPECT_DOUBLE_EQ(vec.encode.bytes, 8.0 * n);
}

TEST(GpuWork, UnknownSchemeThrows) {
  EXPECT_THROW(gpu_work("nosuch", BucketLayout::flat(10), 1), CompressorError);
}
