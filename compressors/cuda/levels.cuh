// The level codec of qsgd.cu and terngrad.cu (levels.cu): one implementation, two schemes
// (L2-norm scales with s levels, or max-norm scales with one level). Host code.
#pragma once

#include "compressors/compressor.h"

#include <memory>

namespace gcu::cuda {

// The CUDA level codec around the CPU twin `cpu` (qsgd: l2 = true; terngrad: false).
std::unique_ptr<compress::Compressor> make_level_cuda(std::unique_ptr<compress::Compressor> cpu, bool l2);

}  // namespace gcu::cuda
