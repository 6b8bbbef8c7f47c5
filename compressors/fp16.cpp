// "fp16" on the CPU (fp16.h): Cast16Compressor (cast16.h) over IEEE half.
#include "fp16.h"

#include "low_precision.h"

namespace gcu::compress {

void register_fp16(Registry& r) {
  register_cast16(r, {"fp16", WireType::F16, lowp::to_half, lowp::from_half},
                  {.negligible_error = true, .baseline = Baseline::FP16,
                   .label = "FP16 DDP", .recommend_grid = {"fp16"}});
}

}  // namespace gcu::compress
