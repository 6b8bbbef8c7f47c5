// Late pilots' use in the predictions (pilot_late.h).
#include "convergence/pilot_late.h"

#include "convergence/pilot_predict.h"
#include "util/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace gcu::calibrate {
namespace {

using Json = nlohmann::ordered_json;

// Least-squares slope of y on x (>= 3 points with distinct x; NaN otherwise).
double ls_slope(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = x.size();
  if (n < 3) return std::nan("");
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) mx += x[i] / n, my += y[i] / n;
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < n; ++i) sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx);
  return sxx > 0 ? sxy / sxx : std::nan("");
}

// The branch point closest to T_0 / 2 below T_0 (0: none).
int pick_branch(const LateBranches& branches, double t0) {
  int at = 0;
  for (const auto& [b, runs] : branches)
    if (b < t0 && (at == 0 || std::abs(b - t0 / 2) < std::abs(at - t0 / 2))) at = b;
  return at;
}

// The stall test's verdict written into the tta object: `never`, no estimate.
void mark_stalled(Json& j, int at, const LateGap& g) {
  j["status"] = model::pilot_status_name(model::PilotStatus::Never);
  j["iterations"] = nullptr;
  j["multiplier"] = nullptr;
  j["interval"] = nullptr;
  j["more_seeds"] = false;
  j["late"] = {{"branch_at", at},        {"gap_slope", g.slope}, {"gap_slope_se", g.se},
               {"baseline_pace", g.pace}, {"seeds", g.seeds},     {"stalled", true}};
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "late pilot from the baseline at iteration %d: the gap to the baseline grows by %.3g per "
                "iteration (SE %.2g over %zu seeds), faster than the baseline's pace to the target (%.3g per "
                "iteration): no progress toward the target after iteration %d",
                at, g.slope, g.se, g.seeds, g.pace, at);
  j["evidence"].push_back(buf);
}

}  // namespace

std::optional<LateGap> late_gap(const LateBranch& scheme, const LateBranch& baseline, int at, double t0,
                                double target) {
  if (!(t0 > at)) return std::nullopt;
  double l0 = 0;  // the baseline's metric at N, mean over its seeds
  size_t n0 = 0;
  for (const auto& [seed, ev] : baseline.evals) {
    auto v = ev.find(at);
    if (v != ev.end() && std::isfinite(v->second)) l0 += v->second, ++n0;
  }
  if (n0 == 0) return std::nullopt;
  LateGap g;
  g.pace = (l0 / n0 - target) / (t0 - at);
  if (!(g.pace > 0) || !std::isfinite(g.pace)) return std::nullopt;
  std::vector<double> slopes;
  for (const auto& [seed, ev] : scheme.evals) {
    auto b = baseline.evals.find(seed);
    if (b == baseline.evals.end() || ev.empty()) continue;
    const int cut = at + (ev.rbegin()->first - at) / 4;  // the first quarter: the compressor's start-up
    std::vector<double> x, y;
    for (const auto& [it, v] : ev) {
      auto bv = b->second.find(it);
      if (it <= cut || bv == b->second.end() || !std::isfinite(v - bv->second)) continue;
      x.push_back(it), y.push_back(v - bv->second);
    }
    const double s = ls_slope(x, y);
    if (std::isfinite(s)) slopes.push_back(s);
  }
  if (slopes.empty()) return std::nullopt;
  g.seeds = slopes.size();
  for (double s : slopes) g.slope += s / slopes.size();
  g.se = util::standard_error_of_mean(slopes);
  g.t = util::student_t90(int(slopes.size()) - 1);  // NaN for one seed
  if (!std::isfinite(g.slope) || !std::isfinite(g.se)) return std::nullopt;  // values near the double's range
  return g;
}

void apply_late(Json& j, const LateBranches& branches, const LateBranches* baseline, double w,
                const PilotPredictOptions& o) {
  const Json& t0j = j.at("baseline_iterations");
  if (!t0j.is_number()) return;
  const double t0 = t0j.get<double>();
  const int at = pick_branch(branches, t0);
  if (at == 0) return;
  if (o.late_stall && baseline && baseline->count(at) && j.at("status") != "never") {
    const auto g = late_gap(branches.at(at), baseline->at(at), at, t0, o.target);
    if (g && g->stalled()) return mark_stalled(j, at, *g);
    if (g && g->outpaces() && j.value("seeds", 0) < j.value("baseline_seeds", 0)) {
      j["more_seeds"] = true;
      char buf[360];
      std::snprintf(buf, sizeof buf,
                    "late pilot from the baseline at iteration %d: the gap to the baseline grows by %.3g per "
                    "iteration over %zu seed(s), faster than the baseline's pace to the target (%.3g), not yet "
                    "beyond the seeds' noise: more seeds decide",
                    at, g->slope, g->seeds, g->pace);
      j["evidence"].push_back(buf);
    }
  }
  if (o.pace) return;  // the pace model (pace.h) takes the late pilots' errors instead
  // The error ratio.
  const std::vector<double>& errs = branches.at(at).errors;
  if (errs.empty() || !j.at("iterations").is_number() || !std::isfinite(w) || !(w > 1e-6)) return;
  const double est = j["iterations"].get<double>();  // t0 > at > 0 (pick_branch)
  if (!(est > 0)) return;
  double e = 0;
  for (double x : errs) e += x / errs.size();
  const double rho = est / t0, ratio = e / w;
  const double min_ratio = o.late_min_ratio;
  if (ratio < min_ratio && ratio > 1 / min_ratio) return;
  Json late = {{"branch_at", at}, {"relative_error", e}, {"error_ratio", ratio}, {"multiplier_pilot", rho},
               {"seeds", errs.size()}};
  char buf[320];
  if (j.at("basis") != "pilot-multiplier" || std::abs(rho - 1) < 0.05) {
    if (ratio < min_ratio) return;  // an error that fell, on par: nothing to say
    late["rescaled"] = false;
    j["late"] = late;
    std::snprintf(buf, sizeof buf,
                  "late pilot from the baseline at iteration %d: relative error %.3g, x%.2f the pilot's, but the "
                  "pilot sees the scheme on par with the baseline (no excess to rescale): its pace after "
                  "iteration %d is not known",
                  at, e, ratio, at);
    j["evidence"].push_back(buf);
    return;
  }
  const double rho_late = std::clamp(1 + (rho - 1) * ratio, 1.0 / o.max_multiplier, o.max_multiplier);
  const double adjusted = est + (rho_late - rho) * (t0 - at);
  if (!(adjusted > 0) || !std::isfinite(adjusted)) return;
  const double f = adjusted / est;
  j["iterations"] = adjusted;
  j["multiplier"] = adjusted / t0;
  if (j.at("interval").is_array())
    j["interval"] = Json::array({j["interval"][0].get<double>() * f, j["interval"][1].get<double>() * f});
  late["multiplier_late"] = rho_late;
  late["rescaled"] = true;
  j["late"] = late;
  std::snprintf(buf, sizeof buf,
                "late pilot from the baseline at iteration %d: relative error %.3g, x%.2f the pilot's; the "
                "multiplier after it %.3g (the pilot's %.3g)",
                at, e, ratio, rho_late, rho);
  j["evidence"].push_back(buf);
}

}  // namespace gcu::calibrate
