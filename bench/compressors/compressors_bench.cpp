// CPU benchmark of every registered compressor (encode + decode through roundtrip(), i.e.
// one rank's compress + decompress with no communication), at n = 1M and 25.6M floats
// (ResNet-50 size), beside LibTorch-op versions of the same operations (torch_ops.h) and
// a STREAM-like copy, all in the same run; prints at the end the speed-up over the
// LibTorch ops (goal >= 3x) and the elementwise schemes' fraction of copy speed (goal
// >= 50%). Throughput = fp32 input bytes (4 n) per second.
//
//   compressors_bench [--threads=N] [--sizes=1048576,25600000] [--malloc-default]
//                     [google-benchmark flags]
//
// Threads: N (default: all hardware threads) for OpenMP (gcu and Eigen), LibTorch
// (torch::set_num_threads) and OpenBLAS: the binary re-executes itself once with
// OPENBLAS_NUM_THREADS=N and OMP_NUM_THREADS=N in the environment, because OpenBLAS reads
// them when it is loaded, before main(). With N = 1 the timings are CPU time of the
// benchmark thread (robust on a loaded machine); with N > 1 they are wall-clock time.
//
// Memory: gcu's buffers are allocated once; the LibTorch ops allocate their temporaries
// on every call. glibc serves blocks over 32 MiB with a fresh mmap and unmaps them on
// free, so each call would fault in ~100 MB of new pages (on the development VM that
// tripled torch's sign packing time at 25.6M). By default the binary keeps freed memory
// in the heap while the torch ops run (mallopt M_MMAP_MAX = 0, M_TRIM_THRESHOLD = 1 GiB),
// as a long-running training process reaches steady state; --malloc-default measures
// glibc's defaults.
#include "compressors/registry.h"
#include "torch_ops.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {
using gcu::compress::BucketLayout;

// Matrices of 1024 x 1024 (PowerSGD compresses them) and the remainder as one 1-D tensor.
BucketLayout bench_layout(int64_t n) {
  BucketLayout l;
  const int64_t side = 1024, mats = n / (side * side);
  for (int64_t i = 0; i < mats; ++i) l.shapes.push_back({side, side});
  if (n - mats * side * side > 0) l.shapes.push_back({n - mats * side * side});
  return l;
}

struct Buffers {
  std::vector<float> in, out;
  BucketLayout layout;
};

Buffers& buffers(int64_t n) {
  static std::map<int64_t, std::unique_ptr<Buffers>> all;
  auto& b = all[n];
  if (!b) {
    b = std::make_unique<Buffers>();
    b->in.resize(n);
    b->out.resize(n);
    std::mt19937 gen(42);
    std::normal_distribution<float> d(0.0f, 1.0f);
    for (auto& v : b->in) v = d(gen);
    b->layout = bench_layout(n);
  }
  return *b;
}

void finish(benchmark::State& st, int64_t n) {
  st.SetBytesProcessed(st.iterations() * n * static_cast<int64_t>(sizeof(float)));
}

void bench_scheme(benchmark::State& st, std::string spec, int64_t n) {
  auto& b = buffers(n);
  auto c = gcu::compress::make_compressor(spec);
  c->roundtrip(0, b.in.data(), b.out.data(), b.layout);  // warm-up: buffers, first touch
  for (auto _ : st) {
    c->roundtrip(0, b.in.data(), b.out.data(), b.layout);
    benchmark::DoNotOptimize(b.out.data());
    benchmark::ClobberMemory();
  }
  finish(st, n);
}

bool g_keep_heap = true;  // --malloc-default clears it

void bench_torch(benchmark::State& st, std::string op, int64_t n) {
  auto& b = buffers(n);
  if (g_keep_heap) {  // only while the torch ops run: gcu's own benchmarks keep glibc's defaults
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }
  {
    auto f = gcu::bench::make_torch_op(op, b.in.data(), b.out.data(), b.layout);
    f();
    for (auto _ : st) {
      f();
      benchmark::ClobberMemory();
    }
  }
  if (g_keep_heap) {
    mallopt(M_MMAP_MAX, 65536);  // glibc's defaults again
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
    malloc_trim(0);
  }
  finish(st, n);
}

void bench_copy(benchmark::State& st, int64_t n) {
  auto& b = buffers(n);
  for (auto _ : st) {
    std::memcpy(b.out.data(), b.in.data(), static_cast<size_t>(n) * sizeof(float));
    benchmark::ClobberMemory();
  }
  finish(st, n);
}

// Keeps seconds per iteration of every run for the summary.
class Collect : public benchmark::ConsoleReporter {
 public:
  bool cpu_time = false;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs)
      if (r.run_type == Run::RT_Iteration && r.iterations > 0)
        seconds[r.benchmark_name()] =
            (cpu_time ? r.cpu_accumulated_time : r.real_accumulated_time) / static_cast<double>(r.iterations);
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> seconds;
};

std::string key(const std::string& what, int64_t n) { return what + "/n=" + std::to_string(n); }

void summary(const Collect& c, const std::vector<int64_t>& sizes, const std::vector<std::string>& specs,
             const std::map<std::string, std::string>& vs_torch, const std::vector<std::string>& elementwise) {
  auto get = [&](const std::string& k) {
    auto it = c.seconds.find(k + "/real_time");
    if (it == c.seconds.end()) it = c.seconds.find(k);
    return it == c.seconds.end() ? -1.0 : it->second;
  };
  for (int64_t n : sizes) {
    const double gb = 4.0 * static_cast<double>(n) / 1e9;
    const double copy_s = get(key("copy/memcpy", n));
    std::printf("\n== n = %lld floats (%.1f MB fp32); copy: %.2f GB/s ==\n", static_cast<long long>(n),
                gb * 1e3, gb / copy_s);
    std::printf("%-34s %10s %9s %10s\n", "gcu scheme (encode+decode)", "ms", "GB/s", "vs copy");
    for (const auto& s : specs) {
      const double t = get(key("gcu/" + s, n));
      if (t > 0) std::printf("%-34s %10.3f %9.2f %9.0f%%\n", s.c_str(), t * 1e3, gb / t, 100.0 * copy_s / t);
    }
    std::printf("%-34s %10s %10s %9s  goal >= 3x\n", "gcu vs LibTorch ops", "gcu ms", "torch ms", "speedup");
    for (const auto& [spec, op] : vs_torch) {
      const double t = get(key("gcu/" + spec, n)), tt = get(key("torch/" + op, n));
      if (t > 0 && tt > 0)
        std::printf("%-34s %10.3f %10.3f %8.2fx  %s\n", spec.c_str(), t * 1e3, tt * 1e3, tt / t,
                    tt / t >= 3 ? "met" : "NOT met");
    }
    std::printf("elementwise vs copy (goal >= 50%%):\n");
    for (const auto& s : elementwise) {
      const double t = get(key("gcu/" + s, n));
      if (t > 0)
        std::printf("  %-32s %7.0f%%  %s\n", s.c_str(), 100.0 * copy_s / t, copy_s / t >= 0.5 ? "met" : "NOT met");
    }
  }
}

std::vector<int64_t> parse_sizes(const std::string& s) {
  std::vector<int64_t> out;
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t comma = s.find(',', pos);
    out.push_back(std::stoll(s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos)));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  std::vector<int64_t> sizes{1 << 20, 25600000};
  std::vector<char*> rest;
  bool malloc_default = false;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--malloc-default") == 0) malloc_default = true;
    else if (std::strncmp(argv[i], "--threads=", 10) == 0) threads = std::atoi(argv[i] + 10);
    else if (std::strncmp(argv[i], "--sizes=", 8) == 0) sizes = parse_sizes(argv[i] + 8);
    else rest.push_back(argv[i]);
  }
  if (threads < 1) { std::fprintf(stderr, "compressors_bench: --threads must be >= 1\n"); return 2; }
  const std::string t = std::to_string(threads);
  const char* env = std::getenv("OPENBLAS_NUM_THREADS");
  if (!env || t != env) {  // OpenBLAS reads it at load time: re-execute once with it set
    setenv("OPENBLAS_NUM_THREADS", t.c_str(), 1);
    setenv("OMP_NUM_THREADS", t.c_str(), 1);
    execv("/proc/self/exe", argv);
    std::perror("compressors_bench: re-exec failed; continuing");
  }
#ifdef _OPENMP
  omp_set_num_threads(threads);
#endif
  gcu::bench::set_torch_threads(threads);
  g_keep_heap = !malloc_default;
  std::printf("malloc: %s\n", malloc_default ? "glibc defaults (large blocks mmap'ed and unmapped per call)"
                                              : "torch ops: freed memory kept in the heap (M_MMAP_MAX=0, "
                                                "M_TRIM_THRESHOLD=1 GiB); gcu: glibc defaults");
  std::printf("threads: %d (OpenMP/Eigen, torch::set_num_threads=%d, OPENBLAS_NUM_THREADS=%s)\n", threads,
              gcu::bench::torch_threads(), std::getenv("OPENBLAS_NUM_THREADS"));

  std::vector<std::string> specs;
  for (const auto& s : gcu::compress::Registry::instance().list()) {
    try {
      specs.push_back(gcu::compress::make_compressor(s.name)->spec());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "skipping %s: %s\n", s.name.c_str(), e.what());
    }
  }
  specs.push_back("thc:bits=4,rot=0");
  specs.push_back("ef(topk:k=0.01)");
  const std::map<std::string, std::string> vs_torch{
      {gcu::compress::make_compressor("topk")->spec(), "topk"},
      {gcu::compress::make_compressor("powersgd")->spec(), "powersgd"},
      {gcu::compress::make_compressor("signsgd")->spec(), "sign"},
      {gcu::compress::make_compressor("qsgd")->spec(), "qsgd"}};
  const std::vector<std::string> elementwise{gcu::compress::make_compressor("fp16")->spec(),
                                             "signsgd", gcu::compress::make_compressor("qsgd")->spec(),
                                             "thc:bits=4,rot=0"};
  auto setup = [&](benchmark::internal::Benchmark* b) {
    if (threads > 1) b->UseRealTime();
    b->Unit(benchmark::kMillisecond);
  };
  for (int64_t n : sizes) {
    setup(benchmark::RegisterBenchmark(key("copy/memcpy", n).c_str(), bench_copy, n));
    for (const auto& s : specs) {
      try {
        gcu::compress::make_compressor(s);
      } catch (const std::exception&) {
        continue;  // e.g. ef() not available in this build
      }
      setup(benchmark::RegisterBenchmark(key("gcu/" + s, n).c_str(), bench_scheme, s, n));
    }
    for (const char* op : {"topk", "powersgd", "sign", "qsgd"})
      setup(benchmark::RegisterBenchmark(key(std::string("torch/") + op, n).c_str(), bench_torch, std::string(op), n));
  }
  int bargc = static_cast<int>(rest.size());
  benchmark::Initialize(&bargc, rest.data());
  Collect reporter;
  reporter.cpu_time = threads == 1;
  std::printf("timings: %s\n", threads == 1 ? "CPU time of the benchmark thread" : "wall-clock time");
  benchmark::RunSpecifiedBenchmarks(&reporter);
  summary(reporter, sizes, specs, vs_torch, elementwise);
  benchmark::Shutdown();
  return 0;
}
