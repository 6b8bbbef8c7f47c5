// Compression-error measurement (error_measure.h).
#include "error_measure.h"

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

namespace {
// min over lambda of ||lambda c - x||^2 / ||x||^2 = 1 - cos^2(c, x), from the dot products.
double scale_optimal_error(double cx, double cc, double xx) {
  if (!(cc > 0)) return 1.0;
  return std::clamp(1.0 - (cx / cc) * (cx / xx), 0.0, 1.0);
}
}  // namespace

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
  // x_t = g_t + e_t is what it compresses; e_{t+1} = x_t - C(x_t) (float, as ef() does).
  auto& e = residual_[bucket_index];
  if (static_cast<int64_t>(e.size()) != n) e.assign(n, 0.0f);
  x_.resize(n);
  for (int64_t i = 0; i < n; ++i) x_[i] = g[i] + e[i];
  out_.assign(n, 0.0f);
  ef_->roundtrip(bucket_index, g, out_.data(), layout);
  double xx = 0, cx = 0, ccx = 0, raw = 0, upd = 0, res = 0;
#pragma omp parallel for reduction(+ : xx, cx, ccx, raw, upd, res) schedule(static) if (n >= (1 << 18))
  for (int64_t i = 0; i < n; ++i) {
    const double xi = x_[i], ci = out_[i];
    xx += xi * xi;
    cx += ci * xi;
    ccx += ci * ci;
    raw += (ci - xi) * (ci - xi);
    upd += (ci - g[i]) * (ci - g[i]);
    e[i] = x_[i] - out_[i];
    res += static_cast<double>(e[i]) * e[i];
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
  const double opt = scale_optimal_error(cg, cc, gg);
  sum_opt_ += opt;
  max_opt_ = std::max(max_opt_, opt);
  // x_t = 0 with g_t != 0 (the residual cancels the gradient exactly): nothing to
  // compress, no error.
  sum_rel_ef_ += xx > 0 ? scale_optimal_error(cx, ccx, xx) : 0.0;
  sum_raw_ef_ += xx > 0 ? raw / xx : 0.0;
  sum_upd_ef_ += upd / gg;
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
    s.variance_factor = s.rel_error_ef = s.rel_error_ef_raw = s.update_error_ef = s.residual_ratio = nan;
    return s;
  }
  const double T = static_cast<double>(samples_);
  s.rel_error = sum_rel_ / T;
  s.rel_error_max = max_rel_;
  s.rel_error_sum = sum_err_ / sum_norm_;
  s.cosine = sum_cos_ / T;
  s.delta = 1.0 - sum_opt_ / T;
  s.delta_min = 1.0 - max_opt_;
  s.variance_factor = biased_ ? std::numeric_limits<double>::quiet_NaN() : s.rel_error;
  s.rel_error_ef = sum_rel_ef_ / T;
  s.rel_error_ef_raw = sum_raw_ef_ / T;
  s.update_error_ef = sum_upd_ef_ / T;
  s.residual_ratio = sum_res_ / T;
  return s;
}

ErrorStats measure_error(const std::string& spec, const std::vector<std::vector<float>>& grads) {
  ErrorMeter m(spec);
  for (const auto& g : grads) m.add(g);
  return m.stats();
}

}  // namespace gcu::compress
