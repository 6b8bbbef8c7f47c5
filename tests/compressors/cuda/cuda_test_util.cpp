// Helpers for the CUDA-vs-CPU tests (cuda_test_util.h).
#include "cuda_test_util.h"

#include "compressors/cuda/device_array.h"
#include "compressors/cuda/staging_communicator.h"
#include "compressors/local_group.h"
#include "compressors/registry.h"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>

namespace gcu::cuda::test {
using namespace gcu::compress;

std::string no_gpu_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error for later calls
    return std::string("cudaGetDeviceCount failed with ") + cudaGetErrorName(e) + " (" +
           cudaGetErrorString(e) + "); GPU tests need an NVIDIA GPU and driver";
  }
  if (n == 0) return "cudaGetDeviceCount returned 0 devices";
  return "";
}

std::vector<float> make_gradient(int64_t n, int rank, uint32_t seed, float scale) {
  std::mt19937 gen(seed * 7919u + static_cast<uint32_t>(rank) * 104729u + 17u);
  std::normal_distribution<float> normal(0.0f, scale);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> g(static_cast<size_t>(n));
  for (auto& v : g) {
    v = normal(gen);
    const float r = u(gen);
    if (r < 0.01f) v *= 20.0f;     // outliers
    else if (r < 0.02f) v = 0.0f;  // exact zeros
  }
  return g;
}

std::vector<std::vector<float>> run_step(const std::string& spec, Device device,
                                         const BucketLayout& layout,
                                         const std::vector<std::vector<float>>& inputs,
                                         int iterations) {
  const int p = static_cast<int>(inputs.size());
  const int64_t n = layout.numel();
  std::vector<std::vector<float>> out(p);
  std::vector<std::unique_ptr<Compressor>> comps;
  for (int r = 0; r < p; ++r) comps.push_back(make_compressor(spec, device));
  LocalGroup group(p);
  group.run([&](Communicator& host) {
    const int r = host.rank();
    std::vector<float> x = inputs[r];
    if (device == Device::CPU) {
      for (int it = 0; it < iterations; ++it) {
        x = inputs[r];
        comps[r]->step({0, x.data(), &layout}, host);
      }
      out[r] = x;
      return;
    }
    StagingCommunicator dev(host);
    DeviceArray<float> d(static_cast<size_t>(n));
    for (int it = 0; it < iterations; ++it) {
      d.upload(inputs[r].data(), static_cast<size_t>(n));
      comps[r]->step({0, d.get(), &layout}, dev);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    out[r] = d.download(static_cast<size_t>(n));
  });
  return out;
}

std::vector<float> run_roundtrip(const std::string& spec, Device device, const BucketLayout& layout,
                                 const std::vector<float>& x, int iterations) {
  auto c = make_compressor(spec, device);
  const size_t n = x.size();
  if (device == Device::CPU) {
    std::vector<float> y(n);
    for (int it = 0; it < iterations; ++it) c->roundtrip(0, x.data(), y.data(), layout);
    return y;
  }
  DeviceArray<float> din(n), dout(n);
  din.upload(x.data(), n);
  for (int it = 0; it < iterations; ++it) c->roundtrip(0, din.get(), dout.get(), layout);
  CUDA_CHECK(cudaDeviceSynchronize());
  return dout.download(n);
}

void expect_close(const std::vector<float>& gpu, const std::vector<float>& cpu, const Tolerance& tol,
                  const std::string& what) {
  ASSERT_EQ(gpu.size(), cpu.size()) << what;
  if (tol.max_rel_l2 >= 0) {
    double num = 0, den = 0;
    for (size_t i = 0; i < cpu.size(); ++i) {
      num += (double(gpu[i]) - cpu[i]) * (double(gpu[i]) - cpu[i]);
      den += double(cpu[i]) * cpu[i];
    }
    const double rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    EXPECT_LE(rel, tol.max_rel_l2) << what << ": relative L2 difference GPU vs CPU";
    return;
  }
  int64_t bad = 0;
  std::string first;
  for (size_t i = 0; i < cpu.size(); ++i) {
    const double g = gpu[i], c = cpu[i];
    const bool same = (std::isnan(g) && std::isnan(c)) || g == c ||
                      std::fabs(g - c) <= tol.atol + tol.rtol * std::fabs(c);
    if (!same) {
      if (bad < 5) first += " [" + std::to_string(i) + "] gpu=" + std::to_string(g) + " cpu=" + std::to_string(c);
      ++bad;
    }
  }
  const double allowed = tol.max_mismatch_fraction * static_cast<double>(cpu.size());
  EXPECT_LE(static_cast<double>(bad), allowed)
      << what << ": " << bad << " of " << cpu.size() << " elements differ:" << first;
}

void expect_same_bits(const std::vector<float>& gpu, const std::vector<float>& cpu, const std::string& what) {
  ASSERT_EQ(gpu.size(), cpu.size()) << what;
  int64_t bad = 0;
  std::string first;
  for (size_t i = 0; i < cpu.size(); ++i) {
    uint32_t g, c;
    std::memcpy(&g, &gpu[i], 4);
    std::memcpy(&c, &cpu[i], 4);
    if (g == c) continue;
    if (bad < 5) {
      char buf[96];
      std::snprintf(buf, sizeof buf, " [%zu] gpu=0x%08x cpu=0x%08x", i, g, c);
      first += buf;
    }
    ++bad;
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << cpu.size() << " elements differ in bits:" << first;
}

void expect_parity(const std::string& spec, const BucketLayout& layout, int p, const Tolerance& tol,
                   int iterations) {
  const int64_t n = layout.numel();
  std::vector<std::vector<float>> inputs;
  for (int r = 0; r < p; ++r) inputs.push_back(make_gradient(n, r));
  const auto cpu = run_step(spec, Device::CPU, layout, inputs, iterations);
  const auto gpu = run_step(spec, Device::CUDA, layout, inputs, iterations);
  for (int r = 0; r < p; ++r)
    expect_close(gpu[r], cpu[r], tol, spec + " step() rank " + std::to_string(r) + " of " + std::to_string(p));
  const auto rc = run_roundtrip(spec, Device::CPU, layout, inputs[0], iterations);
  const auto rg = run_roundtrip(spec, Device::CUDA, layout, inputs[0], iterations);
  expect_close(rg, rc, tol, spec + " roundtrip()");
}

}  // namespace gcu::cuda::test
