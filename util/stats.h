// Sample statistics shared by every library: quantiles (calibrate's summaries, the fits'
// medians, the trainer's per-iteration summaries, the pilot curves' bootstrap), the
// standard error of a mean and Student's t for its interval.
// Linear interpolation between order statistics (type 7, numpy's and R's default): the
// median of an even count is the mean of the two middle values.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace gcu::util {

// The q-quantile of already sorted, non-empty samples.
inline double quantile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) throw std::invalid_argument("quantile: no samples");
  if (!(q >= 0 && q <= 1)) throw std::invalid_argument("quantile: q must be in [0,1], got " + std::to_string(q));
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// The q-quantile of non-empty samples (copied and sorted). Throws std::invalid_argument
// for no samples or q outside [0, 1].
inline double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return quantile_sorted(v, q);
}

inline double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

// The standard error of `v`'s mean: sample sd (n - 1) / sqrt(n); 0 for fewer than 2 values.
double standard_error_of_mean(const std::vector<double>& v);

// One-sided 0.90 quantile of Student's t with `df` degrees of freedom (df >= 1; exact to 3
// decimals up to 10, then 1.2816 + 0.9 / df, within 0.003 of the table); NaN for df < 1.
double student_t90(int df);

}  // namespace gcu::util
