// Codecs timed on the model's own gradient buckets (codec_gradients.h).
#include "calibrate/codec_gradients.h"

#include "calibrate/stats.h"
#include "compressors/registry.h"
#include "model/scheme_cost.h"

#include <algorithm>
#include <cstdio>

namespace gcu::calibrate {

namespace {

double ratio_or_one(double measured_s, double fitted_s) {
  return measured_s >= kMinComparableS && fitted_s >= kMinComparableS
             ? std::min(measured_s / fitted_s, kMaxGradientFactor)
             : 1.0;
}

}  // namespace

CodecGradientState time_codec_on_gradients(const std::string& spec, const GradientSet& g,
                                           const model::CodecFit& sweep_fit,
                                           std::optional<double> wire_extra_per_element_s, int world, int passes,
                                           const model::DdpConfig& ddp, compress::Device device) {
  const GradientBuckets gb = gradient_buckets(g, ddp, "codec timing on gradients");
  const auto& buckets = gb.buckets;
  const int p = std::max(2, world);
  auto c = compress::make_compressor(spec, device);
  const auto* dm = device_memory(device);
  int64_t largest = 0;
  for (const auto& b : buckets) largest = std::max(largest, b.numel);
  BucketBuffer buf(dm, largest);
  LoopbackCommunicator comm(p);
  comm.set_device(dm);
  std::vector<float> x;
  std::vector<double> enc, dec;
  // Pass -1 warms the compressor's state (PowerSGD's Q, error-feedback residuals) untimed.
  for (int pass = -1; pass < std::max(1, passes); ++pass)
    for (const auto& snap : g.snapshots) {
      double e = 0, d = 0;
      for (size_t bi = 0; bi < buckets.size(); ++bi) {
        gb.gather(snap, bi, x);
        buf.load(x.data(), static_cast<int64_t>(x.size()));
        const StepSplit t = time_one_step(*c, {static_cast<int64_t>(bi), buf.data(), &buckets[bi].layout}, comm);
        e += t.encode_s;
        d += t.decode_s;
      }
      if (pass < 0) continue;
      enc.push_back(e);
      dec.push_back(d);
    }
  CodecGradientState s;
  s.buckets = static_cast<int>(buckets.size());
  s.snapshots = static_cast<int>(g.snapshots.size());
  s.encode_s = quantile(enc, 0.5);
  s.decode_s = quantile(dec, 0.5);
  for (const auto& b : buckets) {
    // The model's own formulas (scheme_cost.h), less the wire extra a loopback does not pay.
    const int tensors = static_cast<int>(b.layout.shapes.size());
    s.fit_encode_s += std::max(0.0, model::encode_seconds(sweep_fit.encode, b.numel, tensors));
    s.fit_decode_s += std::max(0.0, model::decode_seconds(sweep_fit.decode, b.numel, p, tensors) -
                                        wire_extra_per_element_s.value_or(0.0) * static_cast<double>(b.numel));
  }
  s.encode_factor = ratio_or_one(s.encode_s, s.fit_encode_s);
  s.decode_factor = wire_extra_per_element_s ? ratio_or_one(s.decode_s, s.fit_decode_s) : 1.0;
  return s;
}

model::CodecFit scaled_fit(const model::CodecFit& fit, std::optional<double> wire_extra_per_element_s,
                           const CodecGradientState& s) {
  const double wx = wire_extra_per_element_s.value_or(0.0);
  model::CodecFit out = fit;
  out.encode.fixed_s *= s.encode_factor;
  out.encode.per_element_s *= s.encode_factor;
  out.decode.fixed_s *= s.decode_factor;
  out.decode.per_element_s = (fit.decode.per_element_s - wx) * s.decode_factor + wx;
  out.decode.per_rank_element_s *= s.decode_factor;
  out.encode.per_tensor_s *= s.encode_factor;
  out.decode.per_tensor_s *= s.decode_factor;
  return out;
}

std::string describe(const CodecGradientState& s) {
  char b[256];
  std::snprintf(b, sizeof b,
                "%d bucket(s) x %d gradient(s): encode %.3f ms (sweep fit %.3f ms, x%.2f), decode %.3f ms (fit %.3f ms, "
                "x%.2f)",
                s.buckets, s.snapshots, s.encode_s * 1e3, s.fit_encode_s * 1e3, s.encode_factor, s.decode_s * 1e3,
                s.fit_decode_s * 1e3, s.decode_factor);
  return b;
}

}  // namespace gcu::calibrate
