// "fp16": the bucket cast to IEEE half precision (1-5-10 bits, max 65504; larger magnitudes become +-Inf) and all-reduced, like PyTorch DDP's fp16_compress_hook.
//
// Wire format (CPU and CUDA identical), for a bucket of n floats on p ranks:
//   one all-reduce, type F16, count n, label "values": h[i] = round_to_nearest_even(x[i] * s)
//   with s = float(1.0f / p) (scale BEFORE the cast, as the PyTorch hook does, so that the
//   sum of p values cannot overflow where each value fits). The Communicator sums in float
//   and rounds once; the result is decoded as x[i] = float(h[i]) (already the average).
//   wire_bytes = 2 n per rank. n = 0: no collective (plan() is empty).
// roundtrip(x) = float(fp16(x)) (no 1/p scaling: one rank's own C(x)).
// NaN/Inf propagate (NaN stays NaN, Inf stays Inf); no error is raised.
// Unbiased? No (deterministic rounding), but the error is tiny: relative <= 2^-11 (fp16,
// normal range) / 2^-8 (bf16) per element. Stateless.
#pragma once

#include "cast16.h"  // Cast16Compressor: the class behind this scheme

namespace gcu::compress {

void register_fp16(Registry& r);

}  // namespace gcu::compress
