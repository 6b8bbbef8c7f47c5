// Every cell predicted again at the grid's compute speed (grid_speed.h).
#include "validate/grid_speed.h"

#include <algorithm>
#include <cmath>

namespace gcu::validate {

void add_grid_speed(const std::vector<std::unique_ptr<CellPredictor>>& preds, const std::string& statistic,
                    std::vector<CellResult>& cells, Summary& summary) {
  GridSpeedErrors& g = summary.at_grid_speed;
  g = GridSpeedErrors{};
  const double f = summary.forward_measured_over_predicted;
  if (!std::isfinite(f) || !(f > 0) || preds.size() != cells.size()) return;
  g.compute_factor = f;
  std::vector<double> all, counted, signed_all;
  for (size_t i = 0; i < cells.size(); ++i) {
    CellResult& c = cells[i];
    if (!c.ok) continue;
    const double total = at(preds[i]->predict(c.rate_used_gbps, 1 / f), Component::Total);
    const double m = c.measured[size_t(Component::Total)].of(statistic);
    if (!std::isfinite(total) || !(m > 0)) continue;
    c.predicted_total_at_grid_speed = total;
    c.error_at_grid_speed = (total - m) / m;
    c.noise_limited_at_grid_speed = noise_limited(c.error_at_grid_speed, c.uncertainty, c.calibration_uncertainty);
    all.push_back(std::abs(c.error_at_grid_speed));
    signed_all.push_back(c.error_at_grid_speed);
    if (c.noise_limited_at_grid_speed)
      ++g.noise_limited;
    else
      counted.push_back(std::abs(c.error_at_grid_speed));
  }
  g.counted = int(counted.size());
  if (!all.empty()) {
    g.median_abs_error_all = spread_of(all).median;
    g.max_abs_error_all = *std::max_element(all.begin(), all.end());
    g.median_error_all = spread_of(signed_all).median;
  }
  if (!counted.empty()) {
    g.median_abs_error = spread_of(counted).median;
    g.max_abs_error = *std::max_element(counted.begin(), counted.end());
  }
}

}  // namespace gcu::validate
