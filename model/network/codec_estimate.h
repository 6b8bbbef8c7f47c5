// Codec costs on a catalog GPU from gcu's own CUDA kernels: each scheme declares what its
// kernels read and write per bucket, how many kernels it launches and (PowerSGD) its
// GEMM FLOPs (compressors/gpu_work.h); a kernel's time is
//
//   bytes / (memory bandwidth x efficiency) + launches x launch_s + FLOPs / (FP32 peak x 0.5)
//
// with the scheme's achieved fraction of memory bandwidth measured on one H100
// (data/hardware/codecs-h100.json, the largest benchmarked size) and assumed on every
// other GPU, one launch cost for every kernel (kKernelLaunchSeconds: launch, ramp-up and
// tail of a kernel that waits for the previous one), and the GPU's catalog rates.
// docs/described.md ("Codec costs on a catalog GPU") derives it and states the check
// against the H100 round trips scheme by scheme.
#pragma once

#include "compressors/gpu_work.h"
#include "model/hardware.h"
#include "model/network/describe.h"
#include "model/profile.h"

#include <map>
#include <string>
#include <vector>

namespace gcu::model::net {

inline constexpr Seconds kKernelLaunchSeconds = 5e-6;
// FP32 GEMMs (PowerSGD's products, rank << rows) at this fraction of the FP32 peak.
inline constexpr double kMatmulEfficiency = 0.5;
// Memory efficiency of a scheme with no measurement at all (no bench given).
inline constexpr double kDefaultMemoryEfficiency = 0.4;
// Per-rank kernel launches of an all-gather decode are charged per element of a DDP
// bucket of this size (25 MiB of FP32): DecodeFit has no per-rank fixed term.
inline constexpr int64_t kPerRankReferenceElements = 6'553'600;

struct CodecRates {
  double memory_bytes_per_s = 0;  // peak
  double memory_efficiency = kDefaultMemoryEfficiency;
  Seconds launch_s = kKernelLaunchSeconds;
  double fp32_flops = 0;          // peak; 0: FLOPs not charged
  double matmul_efficiency = kMatmulEfficiency;
};

// The time of `w` at `r` (formula above).
Seconds work_seconds(const compress::GpuWork& w, const CodecRates& r);

// One tensor of n elements as near-square a matrix as n allows (rows = the largest
// divisor of n not above sqrt(n)): the layout bench/compressors_cuda times PowerSGD on;
// for every other scheme a one-tensor bucket costs the same whatever its shape.
compress::BucketLayout near_square_layout(int64_t n);

// The encode/decode fit of one spec from its declared work at `r` (finite differences
// of the work on near-square one- and two-tensor buckets, world 1 and 2).
CodecFit codec_fit_from_work(const std::string& spec, const CodecRates& r);
// What roundtrip() costs at `r` beyond encode + decode (PowerSGD's input copy).
Seconds roundtrip_extra_seconds(const std::string& spec, int64_t n, const CodecRates& r);

// Fits on `gpu` for every scheme of the registry's recommend grid and every scheme in
// `measured_on` (canonical specs). With `measured_on`, each scheme's memory efficiency
// is its achieved fraction there (another parameter value of the same scheme lends its
// own; a scheme not measured at all takes the median); without it, every scheme runs at
// kDefaultMemoryEfficiency. `notes` gets one line saying what is measured and what is
// estimated.
std::map<std::string, CodecFit> codec_fits_from_work(const hw::Gpu& gpu, const CodecBench* measured_on,
                                                     std::vector<std::string>* notes);

// The model's round trip (encode + decode at world 1 + the round trip's extra) against
// each measured point of `bench`, on the bench's own GPU.
struct CodecCheckRow {
  std::string spec;
  int64_t elements = 0;
  Seconds measured_s = 0, model_s = 0;
  double memory_efficiency = 0;  // the scheme's fraction used
  bool minimum = false;          // data-dependent work counted at its minimum
};
std::vector<CodecCheckRow> check_codec_estimate(const CodecBench& bench);

}  // namespace gcu::model::net
