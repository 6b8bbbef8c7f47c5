// Codec costs from the kernels' declared work (codec_estimate.h).
#include "model/network/codec_estimate.h"

#include "compressors/registry.h"
#include "model/scheme_cost.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace gcu::model::net {
namespace {

namespace cw = gcu::compress;

// Probe sizes of the fits: DDP's first bucket (1 MiB of FP32 is 262,144 elements) is
// above the first; the second is above a 25 MiB bucket.
constexpr int64_t kEstimateSmallN = 1 << 20;
constexpr int64_t kEstimateLargeN = 1 << 24;

std::string estimate_num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

// "a:k={1|2}" -> {"a:k=1", "a:k=2"} (the registry's recommend grid; simulate/whatif.h
// expands user patterns with its own checks and limits).
std::vector<std::string> estimate_expand(const std::string& pattern) {
  const auto open = pattern.find('{');
  const auto close = open == std::string::npos ? std::string::npos : pattern.find('}', open);
  if (close == std::string::npos) return {pattern};
  std::vector<std::string> out;
  const std::string body = pattern.substr(open + 1, close - open - 1);
  size_t pos = 0;
  for (;;) {
    const auto bar = body.find('|', pos);
    const std::string alt = body.substr(pos, bar == std::string::npos ? std::string::npos : bar - pos);
    for (auto& rest : estimate_expand(pattern.substr(close + 1))) out.push_back(pattern.substr(0, open) + alt + rest);
    if (bar == std::string::npos) break;
    pos = bar + 1;
  }
  return out;
}

// Two tensors of n/2 elements each (near-square), for the per-tensor terms.
cw::BucketLayout estimate_two_tensors(int64_t n) {
  cw::BucketLayout l = near_square_layout(n / 2);
  l.shapes.push_back(l.shapes.front());
  return l;
}

double estimate_median(std::vector<double> v) {
  if (v.empty()) return kDefaultMemoryEfficiency;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// The scheme's achieved fraction of memory bandwidth at the largest measured size: the
// measured round trip less its launches and GEMMs, over the bytes its kernels move.
double estimate_efficiency(const std::string& spec, const CodecBench::Line& line, const CodecRates& bench_rates) {
  const auto [n, t] = line.points.back();
  const cw::GpuWork w = cw::roundtrip_work(spec, near_square_layout(static_cast<int64_t>(n)));
  CodecRates no_memory = bench_rates;
  no_memory.memory_bytes_per_s = 0;  // work_seconds without the bytes
  const Seconds rest = t - work_seconds(w, no_memory);
  if (!(rest > 0) || !(w.bytes > 0)) return 1.0;  // launch-bound: the bytes cost nothing extra
  return std::clamp(w.bytes / (bench_rates.memory_bytes_per_s * rest), 0.01, 1.0);
}

}  // namespace

Seconds work_seconds(const cw::GpuWork& w, const CodecRates& r) {
  Seconds t = w.launches * r.launch_s;
  if (r.memory_bytes_per_s > 0) t += w.bytes / (r.memory_bytes_per_s * r.memory_efficiency);
  if (r.fp32_flops > 0) t += w.matmul_flops / (r.fp32_flops * r.matmul_efficiency);
  return t;
}

cw::BucketLayout near_square_layout(int64_t n) {
  if (n <= 0) return cw::BucketLayout{};
  auto rows = static_cast<int64_t>(std::sqrt(static_cast<double>(n)));
  while (rows > 1 && (rows * rows > n || n % rows)) --rows;
  if (rows < 1) rows = 1;
  return cw::BucketLayout{{{rows, n / rows}}};
}

CodecFit codec_fit_from_work(const std::string& spec, const CodecRates& r) {
  const int64_t n1 = kEstimateSmallN, n2 = kEstimateLargeN, nr = kPerRankReferenceElements;
  const double dn = static_cast<double>(n2 - n1);
  auto enc = [&](const cw::BucketLayout& l) { return work_seconds(cw::gpu_work(spec, l, 1).encode, r); };
  auto dec = [&](const cw::BucketLayout& l, int p) { return work_seconds(cw::gpu_work(spec, l, p).decode, r); };
  CodecFit f;
  f.measured_n = n2;
  // encode = fixed + per_element n + per_tensor (tensors - 1)
  const Seconds e1 = enc(near_square_layout(n1)), e2 = enc(near_square_layout(n2));
  f.encode.per_element_s = std::max(0.0, (e2 - e1) / dn);
  f.encode.fixed_s = std::max(0.0, e1 - f.encode.per_element_s * n1);
  f.encode.per_tensor_s = std::max(0.0, enc(estimate_two_tensors(n2)) - e2);
  // decode = fixed + per_element n + per_rank_element n p + per_tensor (tensors - 1): what
  // one more rank adds (its payload's bytes, its launches at the reference bucket size)
  // is the per-rank term; the rest is world-independent.
  auto per_rank = [&](int64_t n) { return dec(near_square_layout(n), 2) - dec(near_square_layout(n), 1); };
  const Seconds rank_bytes_s = (per_rank(n2) - per_rank(n1)) / dn;  // per element per rank
  const Seconds rank_fixed_s = std::max(0.0, per_rank(n1) - rank_bytes_s * n1);
  f.decode.per_rank_element_s = std::max(0.0, rank_bytes_s + rank_fixed_s / nr);
  const Seconds d1 = dec(near_square_layout(n1), 1) - per_rank(n1), d2 = dec(near_square_layout(n2), 1) - per_rank(n2);
  f.decode.per_element_s = std::max(0.0, (d2 - d1) / dn);
  f.decode.fixed_s = std::max(0.0, d1 - f.decode.per_element_s * n1);
  f.decode.per_tensor_s = std::max(0.0, dec(estimate_two_tensors(n2), 1) - dec(near_square_layout(n2), 1));
  return f;
}

Seconds roundtrip_extra_seconds(const std::string& spec, int64_t n, const CodecRates& r) {
  return work_seconds(cw::gpu_work(spec, near_square_layout(n), 1).roundtrip_extra, r);
}

std::map<std::string, CodecFit> codec_fits_from_work(const hw::Gpu& gpu, const CodecBench* measured_on,
                                                     std::vector<std::string>* notes) {
  // Canonical specs: the registry's recommend grid, then what was measured.
  std::vector<std::string> specs;
  for (const auto& pattern : cw::Registry::instance().recommend_grid())
    for (const auto& s : estimate_expand(pattern)) specs.push_back(cw::make_compressor(s)->spec());
  if (measured_on)
    for (const auto& [spec, line] : measured_on->schemes) specs.push_back(spec);
  std::sort(specs.begin(), specs.end());
  specs.erase(std::unique(specs.begin(), specs.end()), specs.end());

  // Each measured scheme's achieved fraction; by scheme name for its other parameters.
  std::map<std::string, double> eff_by_spec, eff_by_name;
  std::vector<double> all;
  if (measured_on) {
    CodecRates bench;
    bench.memory_bytes_per_s = measured_on->memory_bytes_per_s;
    bench.fp32_flops = measured_on->fp32_flops;
    for (const auto& [spec, line] : measured_on->schemes) {
      if (line.points.empty()) continue;
      const double e = estimate_efficiency(spec, line, bench);
      eff_by_spec[spec] = e;
      eff_by_name.emplace(cw::SchemeArgs::parse(spec).name(), e);  // the first measured value
      all.push_back(e);
    }
  }
  const double fallback = measured_on ? estimate_median(all) : kDefaultMemoryEfficiency;

  std::map<std::string, CodecFit> out;
  std::vector<std::string> lent, unmeasured;
  for (const auto& spec : specs) {
    CodecRates r;
    r.memory_bytes_per_s = gpu.memory_bytes_per_s;
    r.fp32_flops = gpu.fp32_flops;
    const std::string name = cw::SchemeArgs::parse(spec).name();
    if (auto it = eff_by_spec.find(spec); it != eff_by_spec.end()) {
      r.memory_efficiency = it->second;
    } else if (auto jt = eff_by_name.find(name); jt != eff_by_name.end()) {
      r.memory_efficiency = jt->second;
      lent.push_back(spec);
    } else {
      r.memory_efficiency = fallback;
      unmeasured.push_back(spec);
    }
    out[spec] = codec_fit_from_work(spec, r);
  }
  if (notes) {
    std::string line =
        "codec costs: estimated from each scheme's CUDA kernel work (bytes read and written, kernel launches, "
        "PowerSGD's GEMM FLOPs; compressors/gpu_work.h) at the " + gpu.name + "'s catalog memory bandwidth and FP32 "
        "peak, " + estimate_num(kKernelLaunchSeconds * 1e6) + " us per kernel, GEMMs at " +
        estimate_num(100 * kMatmulEfficiency) + "% of peak (assumed)";
    if (measured_on)
      line += "; each scheme's achieved fraction of memory bandwidth measured on one " + measured_on->device + " (" +
              measured_on->source + ", the largest size)" +
              (hw::answers_to(gpu, measured_on->gpu) ? "" : " and assumed on the " + gpu.name) +
              "; on the H100 the model is within 25% of every measured round trip (docs/described.md)";
    else
      line += "; " + estimate_num(100 * kDefaultMemoryEfficiency) + "% of memory bandwidth for every scheme (assumed)";
    if (!lent.empty()) line += "; other parameter values take their scheme's measured fraction";
    if (!unmeasured.empty()) line += "; schemes not measured take the median fraction";
    line += "; all-gathered payloads decoded once per rank; PowerSGD was timed on one near-square matrix per bucket, "
            "a model's many matrices add per-matrix GEMM launches (estimated)";
    notes->push_back(line);
  }
  return out;
}

std::vector<CodecCheckRow> check_codec_estimate(const CodecBench& bench) {
  hw::Gpu g;
  g.name = bench.gpu;
  g.memory_bytes_per_s = bench.memory_bytes_per_s;
  g.fp32_flops = bench.fp32_flops;
  const auto fits = codec_fits_from_work(g, &bench, nullptr);
  std::vector<CodecCheckRow> rows;
  for (const auto& [spec, line] : bench.schemes) {
    const CodecFit& f = fits.at(spec);
    CodecRates r;
    r.memory_bytes_per_s = bench.memory_bytes_per_s;
    r.fp32_flops = bench.fp32_flops;
    r.memory_efficiency = estimate_efficiency(
        spec, line, r);  // the same fraction the fit used (measured on this very bench)
    for (const auto& [n, t] : line.points) {
      CodecCheckRow row;
      row.spec = spec;
      row.elements = static_cast<int64_t>(n);
      row.measured_s = t;
      row.model_s = encode_seconds(f.encode, row.elements, 1) + decode_seconds(f.decode, row.elements, 1, 1) +
                    roundtrip_extra_seconds(spec, row.elements, r);
      row.memory_efficiency = r.memory_efficiency;
      row.minimum = cw::roundtrip_work(spec, near_square_layout(row.elements)).minimum;
      rows.push_back(row);
    }
  }
  return rows;
}

}  // namespace gcu::model::net
