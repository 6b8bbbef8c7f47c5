// Fast Walsh-Hadamard transform, full or partial, on consecutive power-of-two blocks
// (used by "thc"). Stage s (s = 0, 1, ...) pairs elements j and j + 2^s inside each
// block (j with bit s clear) and replaces (a, b) by (a + b, a - b). Applying the first t
// stages is H_t; H_t is symmetric and H_t H_t = 2^t I, so the inverse is 2^-t H_t.
// Unnormalized on purpose: no sqrt(2) rounding, so CPU and CUDA can agree bit for bit
// when they apply the stages in the same order (stage 0 first) with the same float ops.
#pragma once

#include <cstdint>

namespace gcu::compress {

// x holds m elements, m a multiple of block (a power of two); applies stages
// 0 .. t-1 (t <= log2(block)) to every block, blocks in parallel.
void fwht_blocks(float* x, int64_t m, int64_t block, int t);

}  // namespace gcu::compress
