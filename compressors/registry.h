// Registry of compression schemes, by name. Adding a scheme = its files + one line in
// register_all.cpp + one line in compressors/CMakeLists.txt (STYLE §4).
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
#include "params.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gcu::compress {

using Factory = std::function<std::unique_ptr<Compressor>(const SchemeArgs&)>;

struct SchemeInfo {
  std::string name;        // "topk"
  std::string params;      // "k=<fraction of elements, default 0.01>"
  std::string summary;     // one line: what it does and its collective
  Factory cpu;             // always set
  Factory cuda;            // set by compressors/cuda's register_cuda(), else empty
};

class Registry {
 public:
  static Registry& instance();  // calls register_all() once
  void add(SchemeInfo info);    // throws on a duplicate name
  void add_cuda(const std::string& name, Factory cuda);  // name must be registered
  const SchemeInfo& find(const std::string& name) const;  // throws listing known names
  std::vector<SchemeInfo> list() const;
  // "ef(<inner>)" for Device::CUDA: wraps a CUDA compressor (set by register_cuda()).
  using Wrapper = std::function<std::unique_ptr<Compressor>(std::unique_ptr<Compressor>)>;
  void set_ef_cuda(Wrapper ef) { ef_cuda_ = std::move(ef); }
  const Wrapper& ef_cuda() const { return ef_cuda_; }

 private:
  std::vector<SchemeInfo> schemes_;
  Wrapper ef_cuda_;
};

// Called once by Registry::instance(); defined in register_all.cpp.
void register_all(Registry& r);

std::unique_ptr<Compressor> make_compressor(const std::string& spec,
                                            Device device = Device::CPU);

}  // namespace gcu::compress
