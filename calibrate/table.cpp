// The nccl-tests-style sweep table (see table.h).
#include "calibrate/table.h"

#include "calibrate/collective_fit.h"
#include "model/collectives.h"

#include <cstdio>
#include <string>

namespace gcu::calibrate {

double algbw_GBps(const SweepRow& r) {
  return r.time_s.median > 0 ? r.bytes / r.time_s.median / 1e9 : 0.0;
}

double busbw_GBps(compress::CollectiveKind k, int world, const SweepRow& r) {
  return algbw_GBps(r) * model::busbw_factor(k, world);
}

std::string format_table(compress::CollectiveKind k, int world, const std::vector<SweepRow>& rows,
                         const std::string& statistic) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "# %s, %d ranks (busbw factor %.3f)\n",
                compress::collective_name(k), world, model::busbw_factor(k, world));
  out += line;
  std::snprintf(line, sizeof line, "# %12s %12s %6s %10s %10s %10s %10s %8s %8s %10s %7s %9s\n", "size",
                "count", "type", "time", "mean", "p10", "p90", "algbw", "busbw", "fit", "err", "calls");
  out += line;
  std::snprintf(line, sizeof line, "# %12s %12s %6s %10s %10s %10s %10s %8s %8s %10s %7s %9s\n", "(B)",
                "(elements)", "", "(us)", "(us)", "(us)", "(us)", "(GB/s)", "(GB/s)", "(us)", "(%)", "(dist.)");
  out += line;
  for (const auto& r : rows) {
    const double y = row_time_s(r, statistic);
    const double err = r.fit_s > 0 && y > 0 ? 100.0 * (r.fit_s - y) / y : 0.0;
    std::snprintf(line, sizeof line,
                  "  %12lld %12lld %6s %10.1f %10.1f %10.1f %10.1f %8.3f %8.3f %10.1f %+7.2f %4lld(%3lld)\n",
                  static_cast<long long>(r.bytes), static_cast<long long>(r.count),
                  r.type.c_str(), r.time_s.median * 1e6, r.time_s.mean_w95 * 1e6, r.time_s.p10 * 1e6, r.time_s.p90 * 1e6,
                  algbw_GBps(r), busbw_GBps(k, world, r), r.fit_s * 1e6, err,
                  static_cast<long long>(r.calls), static_cast<long long>(r.disturbed));
    out += line;
  }
  return out;
}

}  // namespace gcu::calibrate
