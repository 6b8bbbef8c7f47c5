// "terngrad": TernGrad (Wen et al. 2017): each element becomes scale * {-1, 0, +1} with
// P(+-1) = |x_i| / scale, scale = max |x| of its segment. Unbiased, stateless.
// It is LevelCompressor (qsgd.h) with s = 1 and the max-norm scale, so the wire format is
// qsgd's with 2-bit codes: per rank, U32 words [S scales (float bits of max |x_k|)]
// [ceil(n/16) words of 2-bit codes: 00 = 0, 01 = +1, 11 = -1 (10 = -0, treated as 0)].
// One all-gather per bucket; decode result_i = (1/p) sum_r scale_{r,k} * t_{r,i}.
//
// Parameters: bucket=<elements per scale, default 0 = one scale per tensor, as in the
//   paper's per-layer scaling>, seed=<default 0>.
#pragma once

#include "qsgd.h"

namespace gcu::compress {

class TernGradCompressor final : public LevelCompressor {
 public:
  TernGradCompressor(int64_t bucket, uint64_t seed) : LevelCompressor(false, 1, bucket, seed) {}
  std::string spec() const override;
};

void register_terngrad(Registry& r);

}  // namespace gcu::compress
