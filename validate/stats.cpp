// A cell's statistics and the grid's summary (validate.h: compute_stats, summarize): the
// measured spreads and errors per component, the noise test (measurement and calibration
// noise, docs/validation.md §2), and the errors per scheme and per link.
#include "validate/validate.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <string>
#include <vector>

namespace gcu::validate {

double round_interval_width(const std::vector<double>& v) {
  const size_t n = v.size();
  if (n < 2) return std::nan("");
  double mean = 0;
  for (double x : v) mean += x;
  mean /= double(n);
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  const double sd = std::sqrt(ss / double(n - 1));
  return 2 * student_t90(int(n) - 1) * sd / std::sqrt(double(n));
}

namespace {
// The noise rule: the measurement's and the calibration's noise together exceed |error|.
bool noise_limited(double error, double measured_uncertainty, double calibration_uncertainty) {
  return std::isfinite(error) && std::hypot(measured_uncertainty, calibration_uncertainty) > std::abs(error);
}
}  // namespace

void compute_stats(CellResult& r, const std::string& statistic) {
  for (int k = 0; k < kComponents; ++k) {
    std::vector<double> v;
    v.reserve(r.samples.size());
    for (const auto& b : r.samples) v.push_back(b[size_t(k)]);
    r.measured[size_t(k)] = spread_of(std::move(v));
    const double m = r.measured[size_t(k)].of(statistic);
    r.error[size_t(k)] = m > 0 ? (r.predicted[size_t(k)] - m) / m : std::nan("");
  }
  const Spread& t = r.measured[size_t(Component::Total)];
  r.spread = t.median > 0 ? (t.p90 - t.p10) / t.median : 0;
  // Iterations jitter by 30-300% of the median on a shared VM, but a statistic of many
  // iterations moves far less: what separates a model error from machine noise is how
  // much the statistic itself moves from round to round (rounds run in fresh random orders).
  // The measured value is (nearly) the mean of the rounds' values, and its noise is that
  // of a mean: an 80% interval, as the calibration's p10-p90, narrowing as rounds are added
  // (the range, the rule until gcu.validate/5, widens with them: docs/validation.md §2).
  r.uncertainty = r.spread;
  r.uncertainty_range = r.spread;
  const double v = t.of(statistic);
  if (r.round_values.size() >= 2 && v > 0) {
    const auto [lo, hi] = std::minmax_element(r.round_values.begin(), r.round_values.end());
    r.uncertainty_range = (*hi - *lo) / v;
    r.uncertainty = round_interval_width(r.round_values) / v;
  }
  const double pt = r.predicted[size_t(Component::Total)];
  r.calibration_uncertainty = r.calibration_draws > 0 && pt > 0 ? (r.predicted_p90 - r.predicted_p10) / pt : 0;
  r.noise_limited = noise_limited(r.error[size_t(Component::Total)], r.uncertainty, r.calibration_uncertainty);
}

namespace {
// The median and the max of |v| into `median` and `max`; both left alone when v is empty.
void abs_median_max(const std::vector<double>& v, double& median, double& max) {
  if (v.empty()) return;
  std::vector<double> a;
  for (double e : v) a.push_back(std::abs(e));
  median = spread_of(a).median;
  max = *std::max_element(a.begin(), a.end());
}

// Adds cell `c`'s total error to the group named `name` (created in first-seen order).
void add_to_group(std::vector<GroupErrors>& groups, std::vector<std::vector<double>>& errs,
                  const std::string& name, const CellResult& c) {
  size_t i = 0;
  while (i < groups.size() && groups[i].name != name) ++i;
  if (i == groups.size()) {
    groups.push_back({name});
    errs.emplace_back();
  }
  ++groups[i].cells;
  groups[i].noise_limited += c.noise_limited ? 1 : 0;
  const double e = c.judged_error();
  if (std::isfinite(e)) errs[i].push_back(e);
}

void finish_groups(std::vector<GroupErrors>& groups, const std::vector<std::vector<double>>& errs) {
  for (size_t i = 0; i < groups.size(); ++i) {
    if (errs[i].empty()) continue;
    abs_median_max(errs[i], groups[i].median_abs_error, groups[i].max_abs_error);
    groups[i].median_error = spread_of(errs[i]).median;
  }
}
}  // namespace

std::vector<double> round_drift(const std::vector<CellResult>& cells, int rounds) {
  std::vector<std::vector<double>> ratios(size_t(std::max(0, rounds)));
  for (const auto& c : cells) {
    if (!c.ok || c.round_values.size() < 2 || c.round_ids.size() != c.round_values.size()) continue;
    const double m = spread_of(c.round_values).median;
    if (!(m > 0)) continue;
    for (size_t k = 0; k < c.round_values.size(); ++k)
      if (c.round_ids[k] >= 0 && c.round_ids[k] < rounds && std::isfinite(c.round_values[k]))
        ratios[size_t(c.round_ids[k])].push_back(c.round_values[k] / m);
  }
  std::vector<double> d;
  for (auto& r : ratios) d.push_back(r.empty() ? std::nan("") : spread_of(std::move(r)).median);
  return d;
}

Summary summarize(const std::vector<CellResult>& cells, double error_goal) {
  Summary s;
  std::vector<std::vector<double>> scheme_errs, link_errs, batch_errs, ranks_errs;
  for (const auto& c : cells)
    if (c.ok) {
      add_to_group(s.by_scheme, scheme_errs, c.cell.scheme_given.empty() ? c.cell.scheme : c.cell.scheme_given, c);
      add_to_group(s.by_link, link_errs, c.cell.link.name, c);
      add_to_group(s.by_batch, batch_errs, std::to_string(c.cell.batch), c);
      add_to_group(s.by_ranks, ranks_errs, std::to_string(c.cell.ranks), c);
    }
  finish_groups(s.by_scheme, scheme_errs);
  finish_groups(s.by_link, link_errs);
  finish_groups(s.by_batch, batch_errs);
  finish_groups(s.by_ranks, ranks_errs);
  std::vector<double> errs, all, all_raw, cal, raw_counted, shifts, at_cal;
  for (const auto& c : cells) {
    ++s.cells;
    if (!c.ok) {
      ++s.failed;
      continue;
    }
    ++s.ok;
    const double raw = c.error[size_t(Component::Total)];
    const double e = c.judged_error();
    if (std::isfinite(e)) all.push_back(std::abs(e));
    if (std::isfinite(raw)) all_raw.push_back(std::abs(raw));
    if (std::isfinite(e) && c.judged_uncertainty() > std::abs(e)) ++s.noise_limited_measurement;
    if (c.calibration_draws > 0) cal.push_back(c.calibration_uncertainty);
    if (noise_limited(raw, c.uncertainty_range, c.calibration_uncertainty)) ++s.noise_limited_range_rule;
    if (noise_limited(raw, c.uncertainty, c.calibration_uncertainty))
      ++s.noise_limited_unadjusted;
    else if (std::isfinite(raw))
      raw_counted.push_back(std::abs(raw));
    if (c.speed.applied) {
      ++s.speed_adjusted;
      if (std::isfinite(raw)) shifts.push_back(c.speed.error - raw);
      if (std::isfinite(c.speed.error_at_calibration_speed)) at_cal.push_back(c.speed.error_at_calibration_speed);
    }
    if (c.noise_limited) {
      ++s.noise_limited;
      continue;
    }
    if (std::isfinite(e)) errs.push_back(std::abs(e));
  }
  s.counted_unadjusted = int(raw_counted.size());
  abs_median_max(all_raw, s.median_abs_error_all_unadjusted, s.max_abs_error_all_unadjusted);
  abs_median_max(raw_counted, s.median_abs_error_unadjusted, s.max_abs_error_unadjusted);
  if (!shifts.empty()) s.speed_adjustment_shift = spread_of(std::move(shifts)).median;
  abs_median_max(at_cal, s.median_abs_error_at_calibration_speed, s.max_abs_error_at_calibration_speed);
  if (!at_cal.empty()) s.median_error_at_calibration_speed = spread_of(std::move(at_cal)).median;
  s.noise_limited_fraction = s.ok ? double(s.noise_limited) / s.ok : 0;
  for (const auto& [k, out] : {std::pair{Component::Forward, &s.forward_measured_over_predicted},
                               std::pair{Component::Backward, &s.backward_measured_over_predicted}}) {
    std::vector<double> ratios;
    for (const auto& c : cells) {
      const double e = c.error[size_t(k)];  // (predicted - measured) / measured
      if (c.ok && std::isfinite(e) && e > -1) ratios.push_back(1 / (1 + e));
    }
    if (!ratios.empty()) *out = spread_of(std::move(ratios)).median;
  }
  if (!cal.empty()) s.median_calibration_uncertainty = spread_of(cal).median;
  s.counted = int(errs.size());
  abs_median_max(errs, s.median_abs_error, s.max_abs_error);
  abs_median_max(all, s.median_abs_error_all, s.max_abs_error_all);
  s.rounds_plan = plan_rounds(cells);
  s.goal_check = check_goal(cells, error_goal);
  return s;
}

}  // namespace gcu::validate
