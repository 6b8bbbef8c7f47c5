// Partial / full fast Walsh-Hadamard transform on blocks (hadamard.h).
#include "hadamard.h"

#include "bitpack.h"  // GCU_CLONES

namespace gcu::compress {
namespace {

GCU_CLONES_WIDE void stage(float* x, int64_t L, int64_t h) {
  for (int64_t i = 0; i < L; i += 2 * h) {
    float* a = x + i;
    float* b = x + i + h;
    for (int64_t j = 0; j < h; ++j) {
      const float u = a[j], v = b[j];
      a[j] = u + v;
      b[j] = u - v;
    }
  }
}

// Stages 0, 1, 2 at once on groups of 8 (the same additions, in the same order).
GCU_CLONES_WIDE void first_three(float* x, int64_t L) {
  for (int64_t i = 0; i < L; i += 8) {
    float* y = x + i;
    float a0 = y[0] + y[1], a1 = y[0] - y[1], a2 = y[2] + y[3], a3 = y[2] - y[3];
    float a4 = y[4] + y[5], a5 = y[4] - y[5], a6 = y[6] + y[7], a7 = y[6] - y[7];
    float b0 = a0 + a2, b2 = a0 - a2, b1 = a1 + a3, b3 = a1 - a3;
    float b4 = a4 + a6, b6 = a4 - a6, b5 = a5 + a7, b7 = a5 - a7;
    y[0] = b0 + b4; y[4] = b0 - b4; y[1] = b1 + b5; y[5] = b1 - b5;
    y[2] = b2 + b6; y[6] = b2 - b6; y[3] = b3 + b7; y[7] = b3 - b7;
  }
}

// Stages s and s + 1 (h = 2^s) in one pass over the block: the same additions, in the
// same order, as two separate stages (so the result is bit-identical).
GCU_CLONES_WIDE void two_stages(float* x, int64_t L, int64_t h) {
  for (int64_t i = 0; i < L; i += 4 * h) {
    float* a = x + i;
    float* b = a + h;
    float* c = b + h;
    float* d = c + h;
    for (int64_t j = 0; j < h; ++j) {
      const float s0 = a[j] + b[j], s1 = a[j] - b[j], s2 = c[j] + d[j], s3 = c[j] - d[j];
      a[j] = s0 + s2;
      c[j] = s0 - s2;
      b[j] = s1 + s3;
      d[j] = s1 - s3;
    }
  }
}

}  // namespace

void fwht_blocks(float* x, int64_t m, int64_t block, int t) {
  if (t <= 0 || m <= 0) return;
  const int64_t nb = m / block;
#pragma omp parallel for if (nb > 1 && m > (1 << 16)) schedule(static)
  for (int64_t b = 0; b < nb; ++b) {
    float* y = x + b * block;
    int s = 0;
    if (t >= 3) {
      first_three(y, block);
      s = 3;
    }
    for (; s + 1 < t; s += 2) two_stages(y, block, int64_t{1} << s);
    for (; s < t; ++s) stage(y, block, int64_t{1} << s);
  }
}

}  // namespace gcu::compress
