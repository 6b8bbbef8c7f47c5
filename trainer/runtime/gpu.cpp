// GPU helpers of the trainer (gpu.h): CUDA runtime calls and the NCCL communicator, or
// stubs when the build has no GPU path. No LibTorch here.
#include "trainer/runtime/gpu.h"

#include "trainer/runtime/train_options.h"

#ifdef GCU_TRAINER_GPU
#include "compressors/cuda/nccl_communicator.h"
#include "compressors/cuda/register_cuda.h"

#include <cuda_runtime_api.h>
#endif

#include <cstdio>
#include <vector>

namespace gcu::trainer::gpu {

#ifdef GCU_TRAINER_GPU
namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw TrainError(std::string("CUDA: ") + what + " failed: " + cudaGetErrorString(e));
}
}  // namespace

bool built() { return true; }

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return n;
}

void set_device(int device) { check(cudaSetDevice(device), "cudaSetDevice"); }

void register_compressors() { compress::cuda::register_cuda(); }

void synchronize() { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

void synchronize(compress::Communicator& nccl) {
  if (auto* c = dynamic_cast<cuda::NcclCommunicator*>(&nccl)) c->synchronize();
  synchronize();
}

namespace {
// Events created on first use and reused across iterations (grow-only pool).
class CudaEventMarks final : public DeviceMarks {
 public:
  ~CudaEventMarks() override {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);  // no checks: destructor
  }
  int mark(void* stream) override {
    if (used_ == events_.size()) {
      cudaEvent_t e = nullptr;
      check(cudaEventCreate(&e), "cudaEventCreate");
      events_.push_back(e);
    }
    check(cudaEventRecord(events_[used_], static_cast<cudaStream_t>(stream)), "cudaEventRecord");
    return static_cast<int>(used_++);
  }
  double seconds(int a, int b) override {
    check(cudaEventSynchronize(events_[static_cast<size_t>(b)]), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, events_[static_cast<size_t>(a)], events_[static_cast<size_t>(b)]),
          "cudaEventElapsedTime");
    return ms * 1e-3;
  }
  void reset() override { used_ = 0; }

 private:
  std::vector<cudaEvent_t> events_;
  size_t used_ = 0;
};
}  // namespace

std::unique_ptr<DeviceMarks> make_device_marks() { return std::make_unique<CudaEventMarks>(); }

std::string device_name(int device) {
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  char buf[320];
  std::snprintf(buf, sizeof buf, "%s, compute %d.%d, %.1f GiB", p.name, p.major, p.minor,
                static_cast<double>(p.totalGlobalMem) / (1 << 30));
  return buf;
}

std::string nccl_version() { return cuda::NcclCommunicator::version(); }

std::unique_ptr<compress::Communicator> make_nccl_communicator(compress::Communicator& host_comm,
                                                               int device, double timeout_s) {
  std::vector<uint8_t> id(cuda::NcclCommunicator::kUniqueIdBytes, 0);
  if (host_comm.rank() == 0) id = cuda::NcclCommunicator::create_unique_id();
  if (static_cast<int>(id.size()) != cuda::NcclCommunicator::kUniqueIdBytes)
    throw TrainError("NCCL unique id has " + std::to_string(id.size()) + " bytes, expected " +
                     std::to_string(cuda::NcclCommunicator::kUniqueIdBytes));
  host_comm.broadcast(id.data(), static_cast<int64_t>(id.size()), compress::WireType::U8, 0);
  return std::make_unique<cuda::NcclCommunicator>(host_comm.rank(), host_comm.world_size(), id,
                                                  device, nullptr, timeout_s);
}

#else  // no GPU path in this build

namespace {
[[noreturn]] void unavailable() {
  throw TrainError("--device cuda: this gcu was built without the GPU path (it needs the CUDA "
                   "toolkit and NCCL at build time: cmake -DGCU_WITH_CUDA=ON)");
}
}  // namespace

bool built() { return false; }
int device_count() { return 0; }
void set_device(int) { unavailable(); }
void register_compressors() { unavailable(); }
void synchronize() { unavailable(); }
void synchronize(compress::Communicator&) { unavailable(); }
std::unique_ptr<DeviceMarks> make_device_marks() { unavailable(); }
std::string device_name(int) { unavailable(); }
std::string nccl_version() { return {}; }
std::unique_ptr<compress::Communicator> make_nccl_communicator(compress::Communicator&, int, double) {
  unavailable();
}

#endif

}  // namespace gcu::trainer::gpu
