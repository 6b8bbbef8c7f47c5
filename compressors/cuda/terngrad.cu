// "terngrad" on the GPU (compressors/terngrad.h: wire format there): the level codec of
// levels.cu with one level and max-norm scales; bit-identical to compressors/terngrad.cpp.
#include "levels.cuh"
#include "schemes_cuda.h"

namespace gcu::cuda {

std::unique_ptr<compress::Compressor> make_terngrad_cuda(std::unique_ptr<compress::Compressor> cpu) {
  return make_level_cuda(std::move(cpu), /*l2=*/false);
}

}  // namespace gcu::cuda
