// Issue 14 finding 5: NaN payloads. fp16, bf16, none, topk, topkc and randomk on the GPU
// must give the CPU's bytes for NaN inputs of either sign and any payload (the CPU
// propagates the NaN operand through its arithmetic, x86 style; CUDA arithmetic would
// return 0x7fffffff, so the kernels use x86_mul/x86_add). Collectives are the in-process
// staging communicator (host sums, as the CPU's); NCCL's own sums are a separate
// tolerance (docs/compressors_cuda.md). tests/compressors/nan_payload_test.cpp pins the
// CPU side without a GPU.
#include "cuda_test_util.h"

#include <cstring>
#include <string>

using namespace gcu::compress;
using namespace gcu::cuda::test;

namespace {
float nan_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace

TEST(NanPayloadCuda, SameBytesAsTheCpu) {
  GCU_REQUIRE_GPU();
  const int64_t n = 4096;
  const BucketLayout layout = BucketLayout::flat(n);
  std::vector<std::vector<float>> inputs = {make_gradient(n, 0), make_gradient(n, 1)};
  inputs[0][3] = nan_bits(0xffc12345u);   // negative quiet NaN with a payload
  inputs[0][700] = nan_bits(0x7fa00001u); // positive signalling NaN
  inputs[1][2000] = nan_bits(0xfff00000u);
  inputs[1][2001] = -std::numeric_limits<float>::infinity();
  for (const char* spec : {"none", "fp16", "bf16", "topk:k=0.01", "topkc:k=0.05,chunk=64", "randomk:k=0.5"}) {
    const auto cpu = run_step(spec, Device::CPU, layout, inputs, 1);
    const auto gpu = run_step(spec, Device::CUDA, layout, inputs, 1);
    for (int r = 0; r < 2; ++r) expect_same_bits(gpu[r], cpu[r], std::string(spec) + " step rank " + std::to_string(r));
    expect_same_bits(run_roundtrip(spec, Device::CUDA, layout, inputs[0]),
                     run_roundtrip(spec, Device::CPU, layout, inputs[0]), std::string(spec) + " roundtrip");
  }
}
