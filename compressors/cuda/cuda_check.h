// Error checks for the three foreign APIs the CUDA compressors call (STYLE §11):
// CUDA_CHECK (runtime), CUBLAS_CHECK and NCCL_CHECK (when NCCL was found: GCU_HAVE_NCCL). Each throws gcu::cuda::CudaError
// whose message names the failing call, file:line, the library's error string and a hint
// for the common causes (no device, out of memory, a host pointer passed as a device one).
// Included by .cu files and by host .cpp files of compressors/cuda only: never from the
// CPU build.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#ifdef GCU_HAVE_NCCL
#include <nccl.h>
#endif

#include <stdexcept>
#include <string>

namespace gcu::cuda {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda_error(cudaError_t e, const char* expr, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t s, const char* expr, const char* file, int line);
#ifdef GCU_HAVE_NCCL
[[noreturn]] void throw_nccl_error(ncclResult_t r, const char* expr, const char* file, int line);
#endif

}  // namespace gcu::cuda

#define CUDA_CHECK(expr)                                                              \
  do {                                                                                \
    const cudaError_t gcu_e_ = (expr);                                                \
    if (gcu_e_ != cudaSuccess) ::gcu::cuda::throw_cuda_error(gcu_e_, #expr, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: reports bad launch configurations at the launch site.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

#define CUBLAS_CHECK(expr)                                                            \
  do {                                                                                \
    const cublasStatus_t gcu_s_ = (expr);                                             \
    if (gcu_s_ != CUBLAS_STATUS_SUCCESS) ::gcu::cuda::throw_cublas_error(gcu_s_, #expr, __FILE__, __LINE__); \
  } while (0)

#ifdef GCU_HAVE_NCCL
#define NCCL_CHECK(expr)                                                              \
  do {                                                                                \
    const ncclResult_t gcu_r_ = (expr);                                               \
    if (gcu_r_ != ncclSuccess) ::gcu::cuda::throw_nccl_error(gcu_r_, #expr, __FILE__, __LINE__); \
  } while (0)
#endif
