// Kernel work of a scheme on one bucket (gpu_work.h).
#include "compressors/gpu_work.h"

#include "compressors/bitpack.h"
#include "compressors/error_feedback.h"
#include "compressors/registry.h"

namespace gcu::compress {

GpuWork select_by_state_work(int64_t n, int64_t k) {
  // count_tiles reads x; CUB scan of the tile counts; write_selection reads x, writes k
  // values and k indices.
  return {8.0 * n + 8.0 * k, 1 + kCubLaunches + 1, 0, false};
}

GpuWork select_topk_work(int64_t n, int64_t k) {
  const GpuWork radix{12.0 * n, 9, 0, false};  // 3 histogram passes over x
  return radix + select_by_state_work(n, k);
}

GpuWork scatter_add_work(int64_t n, int64_t count, int ranks) {
  // memset of out (4 B written per element); per rank: read value + index, read and
  // write out at the index (16 B per pair).
  return {4.0 * n + 16.0 * count * ranks, 1.0 + ranks, 0, false};
}

GpuWork elementwise_work(int64_t n, double read, double write) {
  return {(read + write) * static_cast<double>(n), 1, 0, false};
}

GpuWork sign_encode_work(int64_t n) {
  const double words = static_cast<double>((n + 63) / 64);
  // pack: x read, 8 B of signs and 8 B of partial sum per word written; reduce: partials read.
  return {4.0 * n + 8 * words + 8 * words + 8 * words, 1 + kCubLaunches + 1, 0, false};
}

CodecWork level_codec_work(const BucketLayout& layout, int world, int width, int64_t block) {
  const int64_t n = layout.numel();
  const double segments = static_cast<double>(bits::segments_for(layout, block).size()) - 1;
  const double code_bytes = 4.0 * static_cast<double>(bits::code_words(n, width));
  const double wire_bytes = 4.0 * segments + code_bytes;  // one rank's U32 words
  CodecWork w;
  w.encode = {4.0 * n + 4.0 * n + wire_bytes, 3, 0, false};
  w.decode = {wire_bytes * world + 4.0 * n, 2, 0, false};
  return w;
}

CodecWork gpu_work(const std::string& spec, const BucketLayout& layout, int world) {
  check_ef_nesting(spec);
  std::string inner;
  if (parse_ef_spec(spec, &inner)) {
    CodecWork w = gpu_work(inner, layout, world);
    const int64_t n = layout.numel();
    w.encode += GpuWork{kEfEncodeWorkBytesPerElement * n, 1, 0, false};  // compensate_kernel
    w.decode += GpuWork{kEfDecodeWorkBytesPerElement * n, 1, 0, false};  // sub_kernel
    return w;
  }
  const std::string canonical = make_compressor(spec)->spec();
  const SchemeArgs args = SchemeArgs::parse(canonical);
  const SchemeInfo& info = Registry::instance().find(args.name());
  if (!info.facts.gpu_work)
    throw CompressorError("scheme '" + info.name + "' declares no GPU work (SchemeFacts::gpu_work)");
  return info.facts.gpu_work(args, layout, world < 1 ? 1 : world);
}

GpuWork roundtrip_work(const std::string& spec, const BucketLayout& layout) {
  const CodecWork w = gpu_work(spec, layout, 1);
  return w.encode + w.decode + w.roundtrip_extra;
}

}  // namespace gcu::compress
