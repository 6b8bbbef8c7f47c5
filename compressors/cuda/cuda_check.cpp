// Error reporting behind CUDA_CHECK, CUBLAS_CHECK and NCCL_CHECK (cuda_check.h).
#include "cuda_check.h"

namespace gcu::cuda {
namespace {
std::string where(const char* expr, const char* file, int line) {
  return std::string(expr) + " at " + file + ":" + std::to_string(line);
}
}  // namespace

void throw_cuda_error(cudaError_t e, const char* expr, const char* file, int line) {
  std::string hint;
  switch (e) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      hint = "no usable CUDA device: check nvidia-smi, the driver version and CUDA_VISIBLE_DEVICES";
      break;
    case cudaErrorMemoryAllocation:
      hint = "out of device memory: use smaller buckets or free other allocations";
      break;
    case cudaErrorInvalidValue:
    case cudaErrorIllegalAddress:
    case cudaErrorInvalidDevicePointer:
      hint = "CUDA compressors take DEVICE buffers (GradBucket::data, roundtrip in/out): "
             "was a host pointer passed?";
      break;
    case cudaErrorNoKernelImageForDevice:
      hint = "built for CMAKE_CUDA_ARCHITECTURES=90 only: reconfigure with this GPU's architecture";
      break;
    default:
      hint = "see the CUDA runtime documentation for this error";
  }
  throw CudaError("CUDA error " + std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) +
                  ") in " + where(expr, file, line) + "; hint: " + hint);
}

void throw_cublas_error(cublasStatus_t s, const char* expr, const char* file, int line) {
  std::string hint = "see the cuBLAS documentation for this status";
  if (s == CUBLAS_STATUS_NOT_INITIALIZED) hint = "cublasCreate failed: is a CUDA device visible?";
  if (s == CUBLAS_STATUS_ALLOC_FAILED) hint = "out of device memory";
  if (s == CUBLAS_STATUS_INVALID_VALUE) hint = "a matrix dimension or leading dimension is invalid";
  throw CudaError("cuBLAS error " + std::string(cublasGetStatusName(s)) + " (" +
                  cublasGetStatusString(s) + ") in " + where(expr, file, line) + "; hint: " + hint);
}

#ifdef GCU_HAVE_NCCL
void throw_nccl_error(ncclResult_t r, const char* expr, const char* file, int line) {
  std::string hint = "rerun with NCCL_DEBUG=INFO for details";
  if (r == ncclUnhandledCudaError) hint = "a CUDA call inside NCCL failed (device lost or out of memory?)";
  if (r == ncclSystemError) hint = "a system call failed: check network interfaces (NCCL_SOCKET_IFNAME) and /dev/shm size";
  if (r == ncclInvalidArgument) hint = "a buffer, count or datatype is invalid (device pointers are required)";
  if (r == ncclInvalidUsage) hint = "ranks called collectives in different orders or with different counts";
  if (r == ncclRemoteError) hint = "another rank failed or disconnected";
  throw CudaError("NCCL error " + std::to_string(static_cast<int>(r)) + " (" + ncclGetErrorString(r) +
                  ") in " + where(expr, file, line) + "; hint: " + hint);
}

#endif

}  // namespace gcu::cuda
