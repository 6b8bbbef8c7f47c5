// LibTorch-op baselines for the compressor benchmark (compressors_bench.cpp): the same
// encode + decode written with torch ops, as a Python user would (torch::topk + scatter,
// sign packing with bitwise ops, QSGD with rand_like, PowerSGD like PyTorch's hook).
// Kept out of the main benchmark file so that only this translation unit includes torch.
#pragma once

#include "compressors/compressor.h"

#include <functional>
#include <string>

namespace gcu::bench {

// One encode + decode of `in` into `out` (numel floats, layout as given) with torch ops.
// op: "topk" (k = 1%), "sign" (scaled sign, packed in uint8), "qsgd" (127 levels, int8
// codes, one L2 norm), "powersgd" (rank 4, warm Q, QR orthogonalization per matrix of
// the layout with >= 2 dims; others copied).
std::function<void()> make_torch_op(const std::string& op, const float* in, float* out,
                                    const compress::BucketLayout& layout);

void set_torch_threads(int threads);
int torch_threads();

}  // namespace gcu::bench
