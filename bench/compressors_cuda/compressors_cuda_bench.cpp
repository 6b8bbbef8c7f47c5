// GPU benchmark of the CUDA compressors (compressors/cuda/). For each scheme, at 1M and
// 25.6M floats (ResNet-50 size): validates against the CPU version on a small bucket first
// (STYLE §6), then times step() on one rank (encode + loop-back collective + decode) and
// roundtrip() (encode + decode, no collective) with CUDA events, median of --reps runs
// after warm-up. Prints per scheme: ms, the bytes its kernels really move per element
// (compressors/gpu_work.h's roundtrip_work(): every pass over the gradient, the wire words
// and the output, read and written, declared by each scheme from its kernels in
// compressors/cuda/; 'min' where data-dependent passes are counted at their minimum), GB/s = moved bytes / time and
// that as a fraction of the device's peak memory bandwidth (memory clock x bus width x 2),
// and time relative to a device-to-device copy of the same n floats (which moves 8n).
//
//   compressors_cuda_bench [--reps 20] [--only topk]     (no GPU: prints why, exits 0)
#include "compressors/cuda/cuda_check.h"
#include "compressors/cuda/device_array.h"
#include "compressors/cuda/register_cuda.h"
#include "compressors/gpu_work.h"
#include "compressors/registry.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <vector>

using namespace gcu::compress;
using gcu::cuda::DeviceArray;

namespace {

// One rank: all-reduce and broadcast leave the data as it is; all-gather copies.
class LoopbackCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  void all_reduce(void*, int64_t, WireType, ReduceOp) override {}
  void all_gather(const void* send, void* recv, int64_t count, WireType type) override {
    const size_t bytes = static_cast<size_t>(count * wire_type_bytes(type));
    if (bytes && send != recv) CUDA_CHECK(cudaMemcpyAsync(recv, send, bytes, cudaMemcpyDeviceToDevice, 0));
  }
  void broadcast(void*, int64_t, WireType, int) override {}
};

struct Timer {
  cudaEvent_t a, b;
  Timer() { CUDA_CHECK(cudaEventCreate(&a)); CUDA_CHECK(cudaEventCreate(&b)); }
  ~Timer() { cudaEventDestroy(a); cudaEventDestroy(b); }
  template <class F>
  double median_ms(int reps, F&& f) {
    for (int i = 0; i < 3; ++i) f();  // warm-up: allocations, caches
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
      CUDA_CHECK(cudaEventRecord(a, 0));
      f();
      CUDA_CHECK(cudaEventRecord(b, 0));
      CUDA_CHECK(cudaEventSynchronize(b));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
      t.push_back(ms);
    }
    std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
    return t[t.size() / 2];
  }
};

// Layout for a scheme: PowerSGD needs matrices; the others see one flat tensor.
BucketLayout layout_for(const std::string& spec, int64_t n) {
  if (spec.rfind("powersgd", 0) == 0) {
    int64_t rows = static_cast<int64_t>(std::sqrt(static_cast<double>(n)));
    while (n % rows) --rows;
    return BucketLayout{{{rows, n / rows}}};
  }
  return BucketLayout::flat(n);
}

// CUDA vs CPU roundtrip on a small bucket: relative L2 difference.
double validate(const std::string& spec) {
  const int64_t n = 1 << 14;
  const BucketLayout layout = layout_for(spec, n);
  std::mt19937 gen(3);
  std::normal_distribution<float> nd;
  std::vector<float> x(n), cpu(n);
  for (auto& v : x) v = nd(gen);
  make_compressor(spec, Device::CPU)->roundtrip(0, x.data(), cpu.data(), layout);
  DeviceArray<float> dx(n), dy(n);
  dx.upload(x.data(), n);
  make_compressor(spec, Device::CUDA)->roundtrip(0, dx.get(), dy.get(), layout);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto gpu = dy.download(n);
  double num = 0, den = 0;
  for (int64_t i = 0; i < n; ++i) {
    num += (double(gpu[i]) - cpu[i]) * (double(gpu[i]) - cpu[i]);
    den += double(cpu[i]) * cpu[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

}  // namespace

int run(int argc, char** argv);
namespace {
struct Timer;
void bench_one(const std::string& spec, int64_t n, int reps, double copy_ms, double peak_GBps,
               DeviceArray<float>& x, DeviceArray<float>& y, DeviceArray<float>& src, Timer& timer);
}  // namespace

int main(int argc, char** argv) {
  gcu::compress::cuda::register_cuda();  // CUDA schemes are registered explicitly
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "compressors_cuda_bench: %s\n", e.what());
    return 1;
  }
}

int run(int argc, char** argv) {
  int reps = 20;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else { std::fprintf(stderr, "usage: %s [--reps N] [--only SCHEME]\n", argv[0]); return 2; }
  }
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    std::printf("no CUDA device (%s): nothing to benchmark\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return 0;
  }
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int mem_clock_khz = 0, bus_bits = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0));
  CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
  const double peak_GBps = 2.0 * mem_clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;  // DDR: 2 transfers/clock
  std::printf("device: %s, peak memory bandwidth %.0f GB/s (%d kHz x %d bits x 2)\n", prop.name,
              peak_GBps, mem_clock_khz, bus_bits);

  const std::vector<std::string> specs = {
      "none", "fp16", "bf16", "topk:k=0.01", "topkc:k=0.01", "randomk:k=0.01", "mstopk:k=0.01",
      "dgc:k=0.01", "signsgd", "efsignsgd", "qsgd:levels=127", "qsgd:levels=1", "terngrad",
      "thc", "powersgd:rank=4"};
  Timer timer;
  bool failed = false;
  for (int64_t n : {int64_t{1} << 20, int64_t{25'600'000}}) {
    DeviceArray<float> x(n), y(n), src(n);
    {
      std::mt19937 gen(1);
      std::normal_distribution<float> nd;
      std::vector<float> h(n);
      for (auto& v : h) v = nd(gen);
      src.upload(h.data(), n);
    }
    const size_t bytes = static_cast<size_t>(n) * sizeof(float);
    const double copy_ms = timer.median_ms(reps, [&] {
      CUDA_CHECK(cudaMemcpyAsync(y.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, 0));
    });
    const double copy_GBps = 2.0 * bytes / (copy_ms * 1e-3) / 1e9;
    std::printf("\nn = %lld floats (%.1f MB): D2D copy %.3f ms = %.0f GB/s read+write (%.0f%% of peak)\n",
                static_cast<long long>(n), bytes / 1e6, copy_ms, copy_GBps, 100 * copy_GBps / peak_GBps);
    std::printf("%-18s %9s %9s %8s %10s %9s %8s  %s\n", "scheme", "step ms", "rt ms", "x copy",
                "moved B/el", "rt GB/s", "of peak", "check");
    for (const std::string& spec : specs) {
      const std::string name = SchemeArgs::parse(spec).name();
      if (!only.empty() && name != only) continue;
      bool has = false;
      for (const auto& s : Registry::instance().list()) has = has || (s.name == name && s.cuda);
      if (!has) { std::printf("%-18s (no CUDA version in this build)\n", spec.c_str()); continue; }
      try {
        bench_one(spec, n, reps, copy_ms, peak_GBps, x, y, src, timer);
      } catch (const std::exception& e) {  // one scheme's failure does not hide the others'
        std::printf("%-18s FAILED: %s\n", spec.c_str(), e.what());
        failed = true;
        cudaGetLastError();  // clear a non-sticky launch error
      }
    }
  }
  std::printf("\nmoved B/el = bytes the roundtrip kernels read + write per gradient element "
              "(roundtrip_work(), compressors/gpu_work.h; 'min': data-dependent, counted at its minimum); rt GB/s = moved / rt "
              "time. Goals (docs/compressors_cuda.md): topk:k=0.01 of 25.6M floats < 1 ms; "
              "elementwise schemes >= 60%% of peak.\n");
  return failed ? 1 : 0;
}

namespace {
void bench_one(const std::string& spec, int64_t n, int reps, double copy_ms, double peak_GBps,
               DeviceArray<float>& x, DeviceArray<float>& y, DeviceArray<float>& src, Timer& timer) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  const double rel = validate(spec);  // before any timing
  const BucketLayout layout = layout_for(spec, n);
  auto comp = make_compressor(spec, Device::CUDA);
  LoopbackCommunicator comm;
  const double step_raw_ms = timer.median_ms(reps, [&] {
    CUDA_CHECK(cudaMemcpyAsync(x.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, 0));
    comp->step({0, x.get(), &layout}, comm);
  }) - copy_ms;  // the refill copy is part of the timed region: subtract it
  const double step_ms = std::max(step_raw_ms, 1e-4);
  const double rt_ms = timer.median_ms(reps, [&] { comp->roundtrip(0, src.get(), y.get(), layout); });
  const GpuWork mv = roundtrip_work(spec, layout);
  const double g = mv.bytes / (rt_ms * 1e-3) / 1e9;
  std::printf("%-18s %9.3f %9.3f %8.2f %7.2f%-3s %9.1f %7.0f%%  rel.diff vs CPU %.1e\n", spec.c_str(),
              step_ms, rt_ms, rt_ms / copy_ms, mv.bytes / static_cast<double>(n),
              mv.minimum ? "min" : "", g, 100 * g / peak_GBps, rel);
}
}  // namespace
