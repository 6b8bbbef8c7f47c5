// What the CUDA kernels of a scheme (compressors/cuda/) do to one bucket: bytes of global
// memory read + written, kernel launches (cuBLAS calls, CUB device calls, memsets and
// device copies each counted as the kernels they run), and matrix-product FLOPs. Declared
// by each scheme beside its registration (SchemeFacts::gpu_work), derived pass by pass from
// its .cu file; used by the model to cost codecs on a catalog GPU (model/network/
// codec_estimate.h) and by bench/compressors_cuda to report achieved bandwidth.
// Torch-free and CUDA-free.
//
// Conventions: every pass over an array counts its full size once (L2 hits not
// subtracted); a scattered 4-byte access counts 4 bytes; data-dependent work (mstopk's
// search passes, dgc's exact fallback) is counted at its minimum and marked `minimum`.
// ENCODE is this rank's work before its collectives (and between them: PowerSGD's second
// product, THC's quantization); DECODE the work after them, of `world` ranks' payloads when
// they were all-gathered (it grows with world). Collectives themselves are not here.
#pragma once

#include "compressors/compressor.h"
#include "compressors/params.h"

#include <cstdint>
#include <string>

namespace gcu::compress {

struct GpuWork {
  double bytes = 0;         // global memory read + written
  double launches = 0;      // kernels run one after another on the stream
  double matmul_flops = 0;  // FP32 GEMM FLOPs (PowerSGD)
  bool minimum = false;     // data-dependent: a lower bound
  GpuWork& operator+=(const GpuWork& o) {
    bytes += o.bytes;
    launches += o.launches;
    matmul_flops += o.matmul_flops;
    minimum = minimum || o.minimum;
    return *this;
  }
};
inline GpuWork operator+(GpuWork a, const GpuWork& b) { return a += b; }

struct CodecWork {
  GpuWork encode;
  GpuWork decode;
  // What Compressor::roundtrip() does beyond encode + decode at world 1 (PowerSGD's copy
  // of the input to the output before working in place); zero for most schemes.
  GpuWork roundtrip_extra;
};

// A scheme's declaration: `a` is its canonical spec parsed (every parameter present).
using GpuWorkFn = CodecWork (*)(const SchemeArgs& a, const BucketLayout& layout, int world);

// The work of `spec` (any registered spec, "ef(X)" included: X's work plus error
// feedback's own passes) on one bucket. Throws CompressorError for an unknown spec or a
// scheme that declares no work.
CodecWork gpu_work(const std::string& spec, const BucketLayout& layout, int world);
// encode + decode at world 1 + roundtrip_extra: what roundtrip() moves (the bench).
GpuWork roundtrip_work(const std::string& spec, const BucketLayout& layout);

// ---- building blocks shared by the schemes' declarations ----------------------------
// Error feedback (error_feedback.cu): compensate x = g + e, keep x in e (read g, e;
// write g, e) before the inner encode; e -= c after the inner decode (read e, c; write e).
inline constexpr double kEfEncodeWorkBytesPerElement = 16;
inline constexpr double kEfDecodeWorkBytesPerElement = 12;
// Kernels in a CUB DeviceScan / DeviceReduce call (its init or single-tile pass + main pass).
inline constexpr double kCubLaunches = 2;
// sparse::select_topk of k among n (compressors/cuda/sparse.cu): memset, init, 3 x
// (histogram, choose_digit), finalize = radix_threshold (9 launches, 3 reads of x); then
// select_by_state: count_tiles (1 read), CUB scan, write_selection (1 read, k pairs).
GpuWork select_topk_work(int64_t n, int64_t k);
// select_by_state alone (count_tiles, CUB scan, write_selection of k pairs).
GpuWork select_by_state_work(int64_t n, int64_t k);
// sparse::scatter_add of `count` pairs from each of `ranks` ranks into n outputs: a
// memset of the output, then per rank one launch reading value + index and updating out.
GpuWork scatter_add_work(int64_t n, int64_t count, int ranks);
// SignEncoder::encode (cuda/sign_encoder.cuh, signsgd and efsignsgd): pack_kernel reads x
// and writes one U64 word and one double partial sum per 64 elements; a CUB reduce
// reads the partials; scale_word_kernel.
GpuWork sign_encode_work(int64_t n);
// The words every rank all-gathers in the sign schemes: ceil(n / 64) + 1 U64 words.
inline double sign_wire_bytes(int64_t n) { return 8.0 * ((n + 63) / 64 + 1); }
// The level codec of qsgd and terngrad (cuda/levels.cu), `width`-bit codes, segments of
// `block` elements (0: one per tensor). Encode: tile_reduce (reads x), segment_scales,
// encode_codes (reads x, writes the code words). Decode: check_scales, decode_codes
// (reads every rank's scales and code words, writes out).
CodecWork level_codec_work(const BucketLayout& layout, int world, int width, int64_t block);
// One elementwise kernel reading `read` and writing `write` bytes per element over n.
GpuWork elementwise_work(int64_t n, double read, double write);

}  // namespace gcu::compress
