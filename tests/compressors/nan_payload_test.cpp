// NaN payloads on the CPU (issue 14 finding 5): the bytes the CUDA versions must
// reproduce (tests/compressors/cuda/nan_payload_cuda_test.cpp compares them on a GPU).
// A NaN keeps its sign through fp16/bf16 encode (also when scaled by 1/p), and a NaN
// value keeps its sign and payload through the none/topk/topkc decodes (x86 arithmetic
// propagates the NaN operand; CUDA's would return the canonical 0x7fffffff, which the
// CUDA kernels avoid with x86_mul/x86_add).
#include "compressors/local_group.h"
#include "compressors/registry.h"
#include "test_data.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace gcu::compress;

namespace {
float nan_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
// step() on 2 ranks; rank 0's input holds the NaN at index 3, rank 1's is finite.
std::vector<float> step2(const std::string& spec, const std::vector<float>& x0, const std::vector<float>& x1) {
  const BucketLayout layout = BucketLayout::flat(static_cast<int64_t>(x0.size()));
  std::vector<float> out;
  LocalGroup group(2);
  group.run([&](Communicator& comm) {
    auto c = make_compressor(spec);
    std::vector<float> x = comm.rank() == 0 ? x0 : x1;
    c->step({0, x.data(), &layout}, comm);
    if (comm.rank() == 0) out = x;
  });
  return out;
}
}  // namespace

TEST(NanPayload, SignAndPayloadSurviveOnTheCpu) {
  const uint32_t neg_payload = 0xffc12345u;  // negative quiet NaN with a payload
  auto x0 = gcu::compress::testing::gaussian(64, 1), x1 = gcu::compress::testing::gaussian(64, 2);
  x0[3] = nan_bits(neg_payload);
  // fp16: encoded sign | 0x7e00 (payload dropped, sign kept), decoded 0xffc00000.
  EXPECT_EQ(bits_of(step2("fp16", x0, x1)[3]), 0xffc00000u);
  // bf16: the top 16 bits with the quiet bit: 0xffc1 -> 0xffc10000.
  EXPECT_EQ(bits_of(step2("bf16", x0, x1)[3]), 0xffc10000u);
  // none: the sum and the 1/p scaling keep the NaN operand: payload intact.
  EXPECT_EQ(bits_of(step2("none", x0, x1)[3]), neg_payload);
  // topk: NaN is selected first; scatter-add of NaN * 1/p keeps it.
  EXPECT_EQ(bits_of(step2("topk:k=0.1", x0, x1)[3]), neg_payload);
  // topkc: its chunk is chosen (NaN norm); sum and scaling keep the payload.
  EXPECT_EQ(bits_of(step2("topkc:k=0.25,chunk=4", x0, x1)[3]), neg_payload);
}
