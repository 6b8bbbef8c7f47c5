// Compression-error measurement (error_measure.h).
#include "error_measure.h"

#include "error_feedback.h"
#include "registry.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gcu::compress {

ErrorMeter::ErrorMeter(const std::string& spec) : spec_(spec) {
  plain_ = make_compressor(spec);
  const SchemeTraits t = plain_->traits();
  ef_builtin_ = t.error_feedback;
  biased_ = t.biased;
  ef_ = ef_builtin_ ? make_compressor(spec) : make_compressor("ef(" + spec + ")");
}

ErrorMeter::~ErrorMeter() = default;

void ErrorMeter::add(const std::vector<float>& g, int64_t bucket_index) {
  const BucketLayout layout = BucketLayout::flat(static_cast<int64_t>(g.size()));
  add(g.data(), layout, bucket_index);
}

void ErrorMeter::add(const float* g, const BucketLayout& layout, int64_t bucket_index) {
  const int64_t n = layout.numel();
  out_.assign(n, 0.0f);
  plain_->roundtrip(bucket_index, g, out_.data(), layout);
  double gg = 0, err = 0, cg = 0, cc = 0;
#pragma omp parallel for reduction(+ : gg, err, cg, cc) schedule(static) if (n >= (1 << 18))
  for (int64_t i = 0; i < n; ++i) {
    const double gi = g[i], ci = out_[i];
    gg += gi * gi;
    err += (ci - gi) * (ci - gi);
    cg += ci * gi;
    cc += ci * ci;
  }
  // The error-feedback instance runs on every buffer (its residual must see them all).
  out_.assign(n, 0.0f);
  ef_->roundtrip(bucket_index, g, out_.data(), layout);
  double err_ef = 0, res = 0;
  const std::vector<float>* e = nullptr;
  if (!ef_builtin_) e = &static_cast<const ErrorFeedback&>(*ef_).residual(bucket_index);
#pragma omp parallel for reduction(+ : err_ef, res) schedule(static) if (n >= (1 << 18))
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(out_[i]) - g[i];
    err_ef += d * d;
    if (e) res += static_cast<double>((*e)[i]) * (*e)[i];
  }
  if (!(gg > 0)) {
    ++zeros_;
    return;
  }
  ++samples_;
  const double rel = err / gg;
  sum_rel_ += rel;
  max_rel_ = std::max(max_rel_, rel);
  sum_err_ += err;
  sum_norm_ += gg;
  sum_cos_ += cc > 0 ? cg / std::sqrt(cc * gg) : 0.0;
  sum_rel_ef_ += err_ef / gg;
  sum_res_ += res / gg;
}

ErrorStats ErrorMeter::stats() const {
  ErrorStats s;
  s.spec = plain_->spec();
  s.samples = samples_;
  s.zero_buffers = zeros_;
  s.biased = biased_;
  s.ef_builtin = ef_builtin_;
  if (samples_ == 0) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.rel_error = s.rel_error_max = s.rel_error_sum = s.cosine = s.delta = s.delta_min = nan;
    s.variance_factor = s.rel_error_ef = s.residual_ratio = nan;
    return s;
  }
  const double T = static_cast<double>(samples_);
  s.rel_error = sum_rel_ / T;
  s.rel_error_max = max_rel_;
  s.rel_error_sum = sum_err_ / sum_norm_;
  s.cosine = sum_cos_ / T;
  s.delta = 1.0 - s.rel_error;
  s.delta_min = 1.0 - s.rel_error_max;
  s.variance_factor = biased_ ? std::numeric_limits<double>::quiet_NaN() : s.rel_error;
  s.rel_error_ef = sum_rel_ef_ / T;
  s.residual_ratio = ef_builtin_ ? std::numeric_limits<double>::quiet_NaN() : sum_res_ / T;
  return s;
}

ErrorStats measure_error(const std::string& spec, const std::vector<std::vector<float>>& grads) {
  ErrorMeter m(spec);
  for (const auto& g : grads) m.add(g);
  return m.stats();
}

}  // namespace gcu::compress
