// The trainer's GPU path (SPEC §4): small helpers that keep CUDA and NCCL out of the
// training loop and every LibTorch translation unit. Torch-free and CUDA-free header;
// gpu.cpp is compiled with the CUDA runtime and compressors/cuda's NcclCommunicator when
// the build has them (GCU_TRAINER_GPU: CUDA found, -DGCU_WITH_CUDA=ON/AUTO, and NCCL
// found), else as stubs: built() is false and the others throw TrainError.
//
// Device conventions follow compressors/cuda/cuda_scheme.h: LibTorch and the CUDA
// compressors queue their work on the legacy default stream; the NCCL communicator
// orders its collectives after it; synchronize() (cudaDeviceSynchronize) before reading
// results or clocks on the host.
#pragma once

#include "compressors/compressor.h"

#include <memory>
#include <string>

namespace gcu::trainer::gpu {

// True when this binary was built with the GPU path (CUDA runtime + NCCL).
bool built();
// CUDA devices the CUDA runtime sees (0 when none, or when not built).
int device_count();
// Makes `device` current for the calling thread (CUDA's current device is per thread).
void set_device(int device);
// Blocks until all work queued on the current device has finished.
void synchronize();
// "NVIDIA H100 80GB HBM3, compute 9.0" for logs.
std::string device_name(int device);
// "NCCL 2.28.9"; empty when not built.
std::string nccl_version();

// An NCCL communicator over all ranks for device buffers on `device`. Collective: every
// rank calls it with the same host communicator; rank 0 creates the NCCL unique id and
// broadcasts it over `host_comm` (Gloo).
std::unique_ptr<compress::Communicator> make_nccl_communicator(compress::Communicator& host_comm,
                                                               int device);

}  // namespace gcu::trainer::gpu
