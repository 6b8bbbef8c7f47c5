// Summary statistics of repeated timings (see stats.h).
#include "calibrate/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>

namespace gcu::calibrate {


Summary summarize(const std::vector<double>& samples, size_t warmup) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  const size_t drop = std::min(warmup, samples.size() - 1);
  std::vector<double> v(samples.begin() + drop, samples.end());
  Summary s;
  s.n = v.size();
  s.discarded = drop;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
  s.median = quantile(v, 0.5);
  s.p10 = quantile(v, 0.1);
  s.p90 = quantile(v, 0.9);
  const double p95 = quantile(v, 0.95);
  double w = 0;
  for (double x : v) w += std::min(x, p95);
  s.mean_w95 = w / v.size();
  return s;
}

std::vector<double> elementwise_median(const std::vector<std::vector<double>>& rows,
                                       size_t warmup) {
  if (rows.empty()) return {};
  const size_t drop = std::min(warmup, rows.size() - 1);
  const size_t width = rows[drop].size();
  std::vector<double> out(width);
  std::vector<double> col;
  for (size_t j = 0; j < width; ++j) {
    col.clear();
    for (size_t i = drop; i < rows.size(); ++i) {
      if (rows[i].size() != width)
        throw std::invalid_argument("elementwise_median: row " + std::to_string(i) + " has " +
                                    std::to_string(rows[i].size()) + " values, expected " +
                                    std::to_string(width));
      col.push_back(rows[i][j]);
    }
    out[j] = median(col);
  }
  return out;
}

std::string ms_text(double seconds) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f ms", seconds * 1e3);
  return b;
}

}  // namespace gcu::calibrate
