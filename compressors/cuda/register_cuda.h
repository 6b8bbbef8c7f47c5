// Registration of the CUDA schemes (compressors/cuda/, library gcu_compressors_cuda).
// gcu_compressors knows nothing of CUDA (no link, no symbol): an executable that wants
// Device::CUDA compressors calls register_cuda() once at start-up, before the first
// make_compressor(..., Device::CUDA). Idempotent. Host code; no CUDA headers.
//
//   int main() { gcu::compress::cuda::register_cuda(); ... }
#pragma once

#include "compressors/registry.h"

namespace gcu::compress::cuda {

// Sets SchemeInfo::cuda for every CPU scheme of `r` with a CUDA version, and the CUDA
// error-feedback wrapper ("ef(<inner>)" with Device::CUDA).
void register_cuda(Registry& r = Registry::instance());

}  // namespace gcu::compress::cuda
