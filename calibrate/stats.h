// Summary statistics of repeated timings (warm-up discarded, medians and spread
// kept). No LibTorch.
#pragma once

#include "util/stats.h"

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

// quantile, median, standard_error_of_mean, student_t90: util/stats.h.
using util::median;
using util::quantile;
using util::standard_error_of_mean;
using util::student_t90;

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
