// Synthetic pilot records for the pilot tests (pilot_predict_test.cpp,
// pilot_sequential_test.cpp): a baseline learning curve l0(t) and, per scheme, `seeds`
// paired runs whose held-out loss is l0(t / rho) plus a small per-seed ripple, evaluated
// every 10 iterations to 300, each closed by its run record (noise scale 50, no relative
// error, 2 workers x batch 32). `nan_late`: the loss is null after iteration 150 (a run
// that diverged).
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace gcu::calibrate::pilot_fixture {

inline double l0(double t) { return 0.3 + 2 * std::pow(t + 10, -0.5); }

inline void add_runs(std::vector<nlohmann::json>& out, const std::string& spec, double rho, int seeds = 3,
                     bool nan_late = false) {
  for (int seed = 1; seed <= seeds; ++seed) {
    for (int t = 0; t <= 300; t += 10) {
      nlohmann::json e{{"type", "eval"}, {"scheme", spec}, {"seed", seed}, {"iteration", t}, {"accuracy", 0.5}};
      const double v = l0(t / rho) + 0.002 * std::sin(1.3 * t + seed);
      e["loss"] = nan_late && t > 150 ? nlohmann::json(nullptr) : nlohmann::json(v);
      out.push_back(e);
    }
    out.push_back({{"type", "run"}, {"scheme", spec}, {"seed", seed}, {"b_simple", 50.0}, {"relative_error", 0.0},
                   {"global_batch", 64.0}, {"workers", 2}});
  }
}

}  // namespace gcu::calibrate::pilot_fixture
