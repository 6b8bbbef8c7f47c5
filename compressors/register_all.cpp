// The list of schemes (registry.h): one line per scheme. CUDA versions are added by
// register_all_cuda() when the library is built with CUDA.
#include "registry.h"

#include "none.h"

namespace gcu::compress {

#ifdef GCU_WITH_CUDA
void register_all_cuda(Registry& r);  // compressors/cuda/register_cuda.cpp
#endif

void register_all(Registry& r) {
  register_none(r);
#ifdef GCU_WITH_CUDA
  register_all_cuda(r);
#endif
}

}  // namespace gcu::compress
