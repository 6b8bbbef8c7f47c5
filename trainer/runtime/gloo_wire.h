// What PgCommunicator's Gloo all-reduce really moves per element, by wire type: Gloo in
// LibTorch 1.13 has no bfloat16 or int16 sum, so those all-reduces are widened (bf16 ->
// float, i16 -> int32: twice the bytes on the link), and an unsigned 32-bit max is done
// on int64. No LibTorch here: calibrate's profile builder (no LibTorch) writes these
// figures into the profile (`cluster.allreduce_element_bytes`) so that the model costs
// such a call by the bytes the link carries, not by the scheme's nominal wire bytes.
#pragma once

#include "compressors/compressor.h"

#include <cstdint>

namespace gcu::trainer {

constexpr int64_t gloo_allreduce_element_bytes(compress::WireType t, compress::ReduceOp op) {
  using compress::WireType;
  if (t == WireType::BF16 || t == WireType::I16) return 4;
  if (t == WireType::U32 && op == compress::ReduceOp::Max) return 8;
  return compress::wire_type_bytes(t);
}

}  // namespace gcu::trainer
