// Registry of compression schemes, by name. Adding a scheme = its files + one line in
// register_all.cpp + one line in compressors/CMakeLists.txt (docs/adding-a-scheme.md).
//
//   auto c = gcu::compress::make_compressor("powersgd:rank=4");          // CPU
//   auto g = gcu::compress::make_compressor("topk:k=0.01", Device::CUDA); // after register_cuda()
//
// CUDA versions are not known to this library (gcu_compressors never links CUDA): an
// executable that wants them calls gcu::compress::cuda::register_cuda(Registry&)
// (compressors/cuda/register_cuda.h) at start-up, which fills SchemeInfo::cuda and the
// CUDA error-feedback wrapper.
//
// Error feedback wraps any scheme: "ef(topk:k=0.01)" (see error_feedback.h).
#pragma once

#include "compressor.h"
#include "gpu_work.h"
#include "params.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gcu::compress {

using Factory = std::function<std::unique_ptr<Compressor>(const SchemeArgs&)>;

// The uncompressed DDP baselines every prediction is compared with (FP32 DDP and
// the stronger FP16 DDP). The scheme that plays one takes no parameters.
enum class Baseline { FP32, FP16 };

// What the model, simulate and calibrate know about a scheme beyond its plan(): declared
// once, beside the scheme, in its register_<scheme>() with designated initialisers. The
// defaults describe a compressing scheme that runs after backward and needs measuring.
// An error-feedback spec "ef(...)" has the defaults (its residual is encode/decode work).
struct SchemeFacts {
  // C(x) = x with nothing to encode or decode: no compression error, and the model needs
  // no "compressors.<spec>" cost fit in the profile.
  bool lossless = false;
  // Compression error too small to change convergence (16-bit casts): without figures in
  // the profile, time to accuracy uses the baseline's iterations.
  bool negligible_error = false;
  std::optional<Baseline> baseline;  // this scheme IS that baseline
  std::string label;                 // legend after the spec: "none (FP32 DDP)"; "" = spec only
  // `gcu simulate recommend`'s default candidates, "{a|b}" expanding (simulate/whatif.h).
  std::vector<std::string> recommend_grid;
  // calibrate's default convergence (pilot-run) specs.
  std::vector<std::string> convergence_specs;
  // calibrate's default codec timings beyond the scheme's default spec, "{a|b}"
  // expanding: other values of each numeric parameter (at least two measured values in
  // all), so that the model interpolates the cost of the values in between
  // (model/codec_cost.h); an "ef(...)" spec measures the error-feedback overhead.
  std::vector<std::string> cost_grid;
  // calibrate measures the overlap contention with the first registered such scheme.
  bool contention_probe = false;
  // What the scheme's CUDA kernels read, write and launch per bucket (gpu_work.h),
  // counted from its compressors/cuda/ file; nullptr: not declared.
  GpuWorkFn gpu_work = nullptr;
};

struct SchemeInfo {
  std::string name;        // "topk"
  std::string params;      // "k=<fraction of elements, default 0.01>"
  std::string summary;     // one line: what it does and its collective
  Factory cpu;             // always set
  Factory cuda;            // set by compressors/cuda's register_cuda(), else empty
  SchemeFacts facts;
};

class Registry {
 public:
  static Registry& instance();  // calls register_all() once
  void add(SchemeInfo info);    // throws on a duplicate name or baseline
  void add_cuda(const std::string& name, Factory cuda);  // name must be registered
  const SchemeInfo& find(const std::string& name) const;  // throws listing known names
  // Facts of a spec's scheme ("topk:k=0.01" -> topk's; "ef(...)": the defaults). Throws
  // CompressorError for a bad spec or an unknown scheme.
  const SchemeFacts& facts(const std::string& spec) const;
  // The scheme registered as `b` (its name is its spec); throws when there is none.
  const SchemeInfo& baseline(Baseline b) const;
  // Every registered scheme's recommend_grid / convergence_specs / cost_grid, in
  // registration order.
  std::vector<std::string> recommend_grid() const;
  std::vector<std::string> convergence_specs() const;
  std::vector<std::string> cost_grid() const;
  // The first registered contention_probe scheme's name; "" when none.
  std::string contention_probe() const;
  std::vector<SchemeInfo> list() const;
  // "ef(<inner>)" for Device::CUDA: wraps a CUDA compressor (set by register_cuda()).
  using Wrapper = std::function<std::unique_ptr<Compressor>(std::unique_ptr<Compressor>)>;
  void set_ef_cuda(Wrapper ef) { ef_cuda_ = std::move(ef); }
  const Wrapper& ef_cuda() const { return ef_cuda_; }
  // Device memory for code that holds no CUDA headers (calibrate's codec timing on a GPU),
  // set by register_cuda(); nullptr in a build without CUDA. copy() takes any direction.
  struct DeviceMemory {
    std::function<void*(size_t bytes)> alloc;
    std::function<void(void*)> release;
    std::function<void(void* dst, const void* src, size_t bytes)> copy;
    std::function<void()> synchronize;  // waits for all work queued on the device
  };
  void set_device_memory(DeviceMemory m) { device_memory_ = std::move(m); }
  const DeviceMemory* device_memory() const { return device_memory_.alloc ? &device_memory_ : nullptr; }

 private:
  std::vector<SchemeInfo> schemes_;
  Wrapper ef_cuda_;
  DeviceMemory device_memory_;
};

// Called once by Registry::instance(); defined in register_all.cpp.
void register_all(Registry& r);

std::unique_ptr<Compressor> make_compressor(const std::string& spec,
                                            Device device = Device::CPU);

}  // namespace gcu::compress
