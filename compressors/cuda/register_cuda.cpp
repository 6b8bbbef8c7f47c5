// Registers the CUDA version of each scheme (register_cuda.h; registry.h:
// Registry::add_cuda). Called explicitly by the executables that want CUDA (gcu,
// compressors_cuda_tests, compressors_cuda_bench, the trainer's GPU path), never by
// gcu_compressors. A CUDA factory builds the CPU twin with the CPU factory (same
// parameters, same plan) and wraps it (cuda_scheme.h). Adding a CUDA scheme = its .cu
// file + one line in the table below + one line in compressors/cuda/CMakeLists.txt.
#include "register_cuda.h"
#include "cuda_check.h"
#include "schemes_cuda.h"

#include <cuda_runtime_api.h>

#include <string>

namespace gcu::compress {

namespace {
struct CudaEntry {
  const char* name;
  gcu::cuda::CudaMaker make;
};
const CudaEntry kCudaSchemes[] = {
    {"none", gcu::cuda::make_none_cuda},
    {"fp16", gcu::cuda::make_fp16_cuda},
    {"bf16", gcu::cuda::make_bf16_cuda},
    {"topk", gcu::cuda::make_topk_cuda},
    {"signsgd", gcu::cuda::make_signsgd_cuda},
    {"qsgd", gcu::cuda::make_qsgd_cuda},
    {"terngrad", gcu::cuda::make_terngrad_cuda},
    {"randomk", gcu::cuda::make_randomk_cuda},
    {"topkc", gcu::cuda::make_topkc_cuda},
    {"dgc", gcu::cuda::make_dgc_cuda},
    {"mstopk", gcu::cuda::make_mstopk_cuda},
    {"efsignsgd", gcu::cuda::make_efsignsgd_cuda},
    {"thc", gcu::cuda::make_thc_cuda},
    {"powersgd", gcu::cuda::make_powersgd_cuda},
};
}  // namespace

namespace cuda {
void register_cuda(Registry& r) {
  for (const CudaEntry& e : kCudaSchemes) {
    Factory cpu;
    for (const SchemeInfo& s : r.list())
      if (s.name == e.name) cpu = s.cpu;
    if (!cpu) continue;  // CPU scheme not (yet) in this build: nothing to pair with
    const auto make = e.make;
    r.add_cuda(e.name, [cpu, make](const SchemeArgs& a) { return make(cpu(a)); });
  }
  r.set_ef_cuda(gcu::cuda::make_error_feedback_cuda);
  Registry::DeviceMemory m;
  m.alloc = [](size_t bytes) {
    void* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
  };
  m.release = [](void* p) { cudaFree(p); };
  m.copy = [](void* dst, const void* src, size_t bytes) {
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
  };
  m.synchronize = [] { CUDA_CHECK(cudaDeviceSynchronize()); };
  r.set_device_memory(std::move(m));
}
}  // namespace cuda

}  // namespace gcu::compress
