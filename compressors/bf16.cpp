// "bf16" on the CPU (bf16.h): Cast16Compressor (cast16.h) over bfloat16.
#include "bf16.h"

#include "low_precision.h"

namespace gcu::compress {

void register_bf16(Registry& r) {
  register_cast16(r, {"bf16", WireType::BF16, lowp::to_bf16, lowp::from_bf16},
                  {.negligible_error = true, .recommend_grid = {"bf16"}});
}

}  // namespace gcu::compress
