// util/stats.h: the standard error of a mean and Student's t.
#include "util/stats.h"

#include <cmath>

namespace gcu::util {

double student_t90(int df) {
  static const double kT[] = {3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415, 1.397, 1.383, 1.372};
  if (df < 1) return std::nan("");
  return df <= 10 ? kT[df - 1] : 1.2816 + 0.9 / df;
}

double standard_error_of_mean(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  const double n = double(v.size());
  double mean = 0;
  for (double x : v) mean += x / n;
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / (n - 1) / n);
}

}  // namespace gcu::util
