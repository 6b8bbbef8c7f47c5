// "qsgd" on the GPU (compressors/qsgd.h: wire format and parameters there): the level
// codec of levels.cu with L2-norm scales (summed in the CPU's order: sumsq.cuh), so
// scales and codes are bit-identical to compressors/qsgd.cpp.
#include "levels.cuh"
#include "schemes_cuda.h"

namespace gcu::cuda {

std::unique_ptr<compress::Compressor> make_qsgd_cuda(std::unique_ptr<compress::Compressor> cpu) {
  return make_level_cuda(std::move(cpu), /*l2=*/true);
}

}  // namespace gcu::cuda
