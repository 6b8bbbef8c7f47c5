// The trainer's GPU path (SPEC §4): small helpers that keep CUDA and NCCL out of the
// training loop and every LibTorch translation unit. Torch-free and CUDA-free header;
// gpu.cpp is compiled with the CUDA runtime and compressors/cuda's NcclCommunicator when
// the build has them (GCU_TRAINER_GPU: CUDA found, -DGCU_WITH_CUDA=ON/AUTO, and NCCL
// found), else as stubs: built() is false and the others throw TrainError.
//
// Device conventions follow compressors/cuda/cuda_scheme.h: LibTorch and the CUDA
// compressors queue their work on the legacy default stream; the NCCL communicator
// orders its collectives after it; synchronize() before reading results on the host.
// Compressor steps are timed with CUDA events (make_device_marks()), not by waiting for
// the device at each collective boundary.
#pragma once

#include "compressors/compressor.h"
#include "trainer/runtime/timing_communicator.h"

#include <memory>
#include <string>

namespace gcu::trainer::gpu {

// True when this binary was built with the GPU path (CUDA runtime + NCCL).
bool built();
// CUDA devices the CUDA runtime sees (0 when none, or when not built).
int device_count();
// Makes `device` current for the calling thread (CUDA's current device is per thread).
void set_device(int device);
// Registers the CUDA compressors (compressors/cuda/register_cuda.h) so that
// make_compressor(..., Device::CUDA) finds them. Idempotent.
void register_compressors();
// Blocks until all work queued on the current device has finished.
void synchronize();
// Waits for the NCCL communicator `nccl` (from make_nccl_communicator) while polling its
// asynchronous errors (a dead peer: clear error within its timeout, communicator
// aborted), then for the device.
void synchronize(compress::Communicator& nccl);
// CUDA-event marks for TimingCommunicator::set_device_marks (events on the current device).
std::unique_ptr<DeviceMarks> make_device_marks();
// "NVIDIA H100 80GB HBM3, compute 9.0" for logs.
std::string device_name(int device);
// "NCCL 2.28.9"; empty when not built.
std::string nccl_version();

// An NCCL communicator over all ranks for device buffers on `device`. Collective: every
// rank calls it with the same host communicator; rank 0 creates the NCCL unique id and
// broadcasts it over `host_comm` (Gloo). `timeout_s`: the longest wait for NCCL (init,
// synchronize) before it is aborted with a clear error (the trainer's --timeout).
std::unique_ptr<compress::Communicator> make_nccl_communicator(compress::Communicator& host_comm,
                                                               int device, double timeout_s);

}  // namespace gcu::trainer::gpu
