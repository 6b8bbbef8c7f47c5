// What a scheme sends, for `gcu schemes` and reports: its canonical spec, parameter help,
// the collectives of plan() and the exact wire bytes per rank for a bucket layout and a
// world size, next to the FP32 all-reduce of the same bucket. Pure library (no CLI).
#pragma once

#include "compressor.h"

#include <string>
#include <vector>

namespace gcu::compress {

struct SchemeDescription {
  std::string name, spec, params, summary;
  std::vector<CollectiveCall> calls;
  int64_t wire_bytes = 0;   // per rank, sum over calls
  int64_t fp32_bytes = 0;   // 4 * numel: the uncompressed all-reduce payload
  double ratio = 0;         // fp32_bytes / wire_bytes (0 when nothing is sent)
  SchemeTraits traits;
};

// `spec` may be "ef(...)". Throws CompressorError for unknown schemes / bad parameters.
SchemeDescription describe_scheme(const std::string& spec, const BucketLayout& layout, int world);

// Every registered scheme with its default parameters, in registry order.
std::vector<SchemeDescription> describe_all(const BucketLayout& layout, int world);

// "1000x512,512,64x3x3x3" -> tensors of those shapes; throws CompressorError naming the
// offending token ("0x3", "ax2", ""), dimensions must be >= 1.
BucketLayout parse_layout(const std::string& text);

// "all-gather f32 x 2000 (values) + all-gather i32 x 2000 (indices)"; "-" for none.
std::string format_calls(const std::vector<CollectiveCall>& calls);

}  // namespace gcu::compress
