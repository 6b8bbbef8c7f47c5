// Test helper: reproducible gradient-like buffers for the compressor tests.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace gcu::compress::testing {

// Normal(0, sigma) floats; with heavy = true, 1% of them 30x larger (gradient-like tails).
inline std::vector<float> gaussian(int64_t n, unsigned seed, float sigma = 1.0f, bool heavy = false) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.0f, sigma);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& e : v) {
    e = d(gen);
    if (heavy && u(gen) < 0.01f) e *= 30.0f;
  }
  return v;
}

}  // namespace gcu::compress::testing
