// Helpers for the CUDA-vs-CPU tests: skipping without a GPU, device copies, and running
// a scheme on p in-process ranks on the CPU and on the GPU with the same inputs so that
// the results can be compared element by element.
#pragma once

#include "compressors/compressor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gcu::cuda::test {

// Empty when a CUDA device is usable; otherwise why not (for the skip message).
std::string no_gpu_reason();

#define GCU_REQUIRE_GPU()                                                        \
  do {                                                                           \
    const std::string gcu_why_ = ::gcu::cuda::test::no_gpu_reason();             \
    if (!gcu_why_.empty()) GTEST_SKIP() << "no CUDA device: " << gcu_why_;        \
  } while (0)

// Deterministic test gradients: per rank, standard normal times `scale`, with a few
// larger outliers (like real gradients) and optional exact zeros.
std::vector<float> make_gradient(int64_t n, int rank, uint32_t seed = 1, float scale = 1.0f);

// Runs `iterations` step() calls of spec on p ranks (LocalGroup threads) on `device`;
// inputs[r] is rank r's gradient for every iteration (bucket index 0). Returns each
// rank's bucket after the last step.
std::vector<std::vector<float>> run_step(const std::string& spec, compress::Device device,
                                         const compress::BucketLayout& layout,
                                         const std::vector<std::vector<float>>& inputs,
                                         int iterations = 1);
// One rank's roundtrip() (C(x) without communication), `iterations` times.
std::vector<float> run_roundtrip(const std::string& spec, compress::Device device,
                                 const compress::BucketLayout& layout, const std::vector<float>& x,
                                 int iterations = 1);

struct Tolerance {
  double atol = 0;              // |gpu - cpu| <= atol + rtol |cpu| counts as equal
  double rtol = 0;
  double max_mismatch_fraction = 0;  // stochastic schemes: rounding may flip a few levels
  double max_rel_l2 = -1;       // if >= 0: ||gpu - cpu|| / ||cpu|| bound instead of elementwise
};
// Adds a gtest failure naming the first mismatches when gpu and cpu disagree.
void expect_close(const std::vector<float>& gpu, const std::vector<float>& cpu, const Tolerance& tol,
                  const std::string& what);

// Adds a gtest failure naming the first elements whose float BITS differ (NaN payloads
// and signs included).
void expect_same_bits(const std::vector<float>& gpu, const std::vector<float>& cpu, const std::string& what);

// The full parity check: step() with p ranks and roundtrip(), CUDA vs CPU, same inputs.
void expect_parity(const std::string& spec, const compress::BucketLayout& layout, int p,
                   const Tolerance& tol, int iterations = 2);

}  // namespace gcu::cuda::test
