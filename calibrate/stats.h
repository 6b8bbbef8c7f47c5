// Summary statistics of repeated timings (warm-up discarded, medians and spread
// kept). No LibTorch.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gcu::calibrate {

struct Summary {
  double median = 0;
  double p10 = 0;  // 10th percentile (linear interpolation between order statistics)
  double p90 = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  // Mean with the samples above the 95th percentile replaced by it (winsorized): keeps a
  // latency tail that a quarter of the calls pay, caps a rare preemption of tens of ms.
  double mean_w95 = 0;
  size_t n = 0;          // samples kept (after the warm-up discard)
  size_t discarded = 0;  // warm-up samples dropped from the front
  // (p90 - p10) / median: the spread reported next to each median; 0 when median is 0.
  double rel_spread() const { return median > 0 ? (p90 - p10) / median : 0.0; }
};

// q-quantile (0 <= q <= 1) of `v` with linear interpolation (numpy's default); throws
// std::invalid_argument on an empty vector or q outside [0, 1].
double quantile(std::vector<double> v, double q);
double median(std::vector<double> v);
// The standard error of `v`'s mean: sample sd (n - 1) / sqrt(n); 0 for fewer than 2 values.
double standard_error_of_mean(const std::vector<double>& v);

// One-sided 0.90 quantile of Student's t with `df` degrees of freedom (df >= 1; exact to 3
// decimals up to 10, then 1.2816 + 0.9 / df, within 0.003 of the table); NaN for df < 1.
double student_t90(int df);

// Drops the first `warmup` samples (all but one when there are fewer), then summarizes.
// Throws std::invalid_argument on an empty input.
Summary summarize(const std::vector<double>& samples, size_t warmup = 0);

// Element-wise median of equally long sample vectors (e.g. per-tensor gradient-ready
// times over iterations), after dropping the first `warmup` vectors.
std::vector<double> elementwise_median(const std::vector<std::vector<double>>& rows,
                                       size_t warmup = 0);

// Seconds as milliseconds for progress lines: "12.34 ms".
std::string ms_text(double seconds);

}  // namespace gcu::calibrate
