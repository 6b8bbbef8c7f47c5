// Elementwise kernels shared by the CUDA compressors (kernels_common.cuh).
#include "kernels_common.cuh"

namespace gcu::cuda {

namespace {
thread_local void* t_stream = nullptr;
}  // namespace
void* current_stream() { return t_stream; }
StreamScope::StreamScope(void* s) : prev_(t_stream) { t_stream = s; }
StreamScope::~StreamScope() { t_stream = prev_; }

namespace {
__global__ void scale_kernel(float* x, int64_t n, float s) {
  GCU_GRID_STRIDE(i, n) x[i] = x86_mul(x[i], s);
}
__global__ void scatter_add_kernel(float* x, const float* v, const int32_t* idx, int64_t m) {
  GCU_GRID_STRIDE(j, m) x[idx[j]] += v[j];
}
}  // namespace

void scale_inplace(float* x, int64_t n, float s) {
  if (n <= 0) return;
  scale_kernel<<<grid_for(n), kBlock, 0, stream()>>>(x, n, s);
  CUDA_CHECK_LAUNCH();
}

void scatter_add_unique(float* x, const float* v, const int32_t* idx, int64_t m) {
  if (m <= 0) return;
  scatter_add_kernel<<<grid_for(m), kBlock, 0, stream()>>>(x, v, idx, m);
  CUDA_CHECK_LAUNCH();
}

void zero(float* x, int64_t n) {
  if (n > 0) CUDA_CHECK(cudaMemsetAsync(x, 0, static_cast<size_t>(n) * sizeof(float), stream()));
}

}  // namespace gcu::cuda
