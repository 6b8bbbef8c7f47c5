// The machine's speed taken out of each cell's rounds (speed_adjust.h).
#include "validate/speed_adjust.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <utility>

namespace gcu::validate {

double CellResult::judged_error() const {
  return speed.applied ? speed.error : error[size_t(Component::Total)];
}

double CellResult::judged_uncertainty() const { return speed.applied ? speed.uncertainty : uncertainty; }

double CellResult::judged_noise() const { return std::hypot(judged_uncertainty(), calibration_uncertainty); }

namespace {

// Every round of the cell has a finite, positive reference and value.
bool has_references(const CellResult& c) {
  if (c.round_reference.empty() || c.round_reference.size() != c.round_values.size()) return false;
  for (size_t k = 0; k < c.round_values.size(); ++k)
    if (!(c.round_reference[k] > 0) || !std::isfinite(c.round_reference[k]) || !std::isfinite(c.round_values[k]))
      return false;
  return true;
}

double mean_of(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m += x;
  return m / double(v.size());
}

// A group's reference: the mean over every round of its cells, and how well that mean is
// known from the machine's round-to-round noise (the pooled within-cell standard deviation
// of the rounds' references, so that cells whose forward differs do not count as noise).
struct Group {
  double sum = 0, within_ss = 0;
  int n = 0, within_df = 0;
  void add(const std::vector<double>& refs) {
    const double m = mean_of(refs);
    for (double r : refs) {
      sum += r;
      within_ss += (r - m) * (r - m);
    }
    n += int(refs.size());
    within_df += int(refs.size()) - 1;
  }
  double mean() const { return sum / n; }
  // The machine's round-to-round spread of the reference, relative to the mean (0: unknown).
  double rel_sd() const { return within_df > 0 ? std::sqrt(within_ss / within_df) / mean() : 0; }
  // The width of the 80% interval of a mean of `rounds` rounds, relative (0: unknown).
  double rel_interval(double rounds) const {
    return within_df > 0 ? 2 * student_t90(within_df) * rel_sd() / std::sqrt(rounds) : 0;
  }
};

using Key = std::tuple<int, int, std::string>;
Key group_key(const CellResult& c) { return Key{c.cell.ranks, c.cell.batch, c.cell.link.name}; }

bool eligible(const CellResult& c) { return c.ok && has_references(c) && std::isfinite(c.speed.sensitivity_s); }

std::map<Key, Group> groups_of(const std::vector<CellResult>& cells, const std::vector<bool>& use) {
  std::map<Key, Group> groups;
  for (size_t i = 0; i < cells.size(); ++i)
    if (use[i]) groups[group_key(cells[i])].add(cells[i].round_reference);
  return groups;
}

void adjust_cell(CellResult& c, const Group& g, const std::string& statistic) {
  SpeedAdjustment& a = c.speed;
  a.reference_s = g.mean();
  a.speed.clear();
  a.round_values.clear();
  const double ks = a.coefficient * a.sensitivity_s;
  for (size_t k = 0; k < c.round_values.size(); ++k) {
    const double s = c.round_reference[k] / a.reference_s;
    a.speed.push_back(s);
    a.round_values.push_back(c.round_values[k] - ks * (s - 1));
  }
  a.mean_speed = mean_of(a.speed);
  a.value = c.measured[size_t(Component::Total)].of(statistic) - ks * (a.mean_speed - 1);
  if (!(a.value > 0)) {
    a.note = "the adjusted total is not positive (sensitivity " + std::to_string(ks) + " s)";
    return;
  }
  a.error = (c.predicted[size_t(Component::Total)] - a.value) / a.value;
  const double rounds = a.round_values.size() >= 2 ? round_interval_width(a.round_values) / a.value : c.spread;
  a.reference_uncertainty = std::abs(ks) * g.rel_interval(g.n) / a.value;
  a.uncertainty = std::hypot(rounds, a.reference_uncertainty);
  // At the calibration's speed: the same adjustment against the forward + optimizer the
  // model predicted (the calibration's), which also takes out the machine's drift since.
  const double ref_pred = at(c.predicted, Component::Forward) + at(c.predicted, Component::Optimizer);
  // k S is the slope per unit of the speed against the group's mean, so per second of
  // reference it is k S / reference_s.
  const double at_cal = c.measured[size_t(Component::Total)].of(statistic) -
                        ks * (mean_of(c.round_reference) - ref_pred) / a.reference_s;
  a.error_at_calibration_speed =
      ref_pred > 0 && at_cal > 0 ? (c.predicted[size_t(Component::Total)] - at_cal) / at_cal : std::nan("");
  a.applied = std::isfinite(a.error) && std::isfinite(a.uncertainty);
  if (!a.applied) a.note = "the adjusted error is not finite";
}

}  // namespace

void apply_speed_adjustment(std::vector<CellResult>& cells, const std::string& statistic) {
  // Groups: every round of every cell of the same ranks, batch and link (the forward and
  // optimizer step of one model depend on nothing else, except that the recorded grids ran
  // the forward 2-8% slower at 200 Mbit/s than at the unlimited link).
  std::vector<bool> use(cells.size());
  for (size_t i = 0; i < cells.size(); ++i) {
    CellResult& c = cells[i];
    c.speed.applied = false;
    use[i] = eligible(c);
    if (!c.ok || use[i]) continue;
    c.speed.note = !has_references(c) ? "no forward + optimizer time in every round"
                                      : "no finite sensitivity of the prediction to compute speed";
  }
  // A cell whose reference sits further from its group's than the machine's round-to-round
  // spread allows (the width of the 80% interval of a mean of its rounds, 2 t s / sqrt(n):
  // ~2.6 standard errors) ran another forward: the scheme or link changes it (QSGD at
  // 200 Mbit/s on ResNet-18: the ranks' forwards alternate between 60 and 135 ms), so the
  // machine's speed would move its value. Left as measured, and out of its group's mean.
  {
    const auto first = groups_of(cells, use);
    for (size_t i = 0; i < cells.size(); ++i) {
      if (!use[i]) continue;
      CellResult& c = cells[i];
      const Group& g = first.at(group_key(c));
      const double dev = mean_of(c.round_reference) / g.mean() - 1;
      const double limit = g.rel_interval(double(c.round_reference.size()));
      if (limit > 0 && std::abs(dev) > limit) {
        char b[240];
        std::snprintf(b, sizeof b,
                      "its forward + optimizer ran %+.0f%% against its group's (ranks, batch, link), beyond the "
                      "machine's round-to-round spread (%.0f%%): the cell changes the forward; left as measured",
                      dev * 100, limit * 100);
        c.speed.note = b;
        use[i] = false;
      }
    }
  }
  const auto groups = groups_of(cells, use);
  // The coefficient k per (ranks, batch): the least-squares slope, through 0, of the rounds'
  // deviations from their cell's mean total on S x their reference's deviations (relative to
  // the group's mean), pooled over the cells. k = 1 when the reference tracks every second
  // of compute the model says the total holds; at 4 ranks on 2 cores the slowest rank's
  // forward tracks it less (recorded grids: 0.3-0.6). Deviations within a cell have mean 0
  // whatever k is, so fitting it cannot move a cell's expected value; clipped to [0, 2].
  std::map<std::pair<int, int>, std::pair<double, double>> fit;  // (sum xy, sum xx)
  for (size_t i = 0; i < cells.size(); ++i) {
    const CellResult& c = cells[i];
    if (!use[i] || c.round_values.size() < 2) continue;
    const Group& g = groups.at(group_key(c));
    const double mr = mean_of(c.round_reference), mt = mean_of(c.round_values);
    auto& f = fit[{c.cell.ranks, c.cell.batch}];
    for (size_t k = 0; k < c.round_values.size(); ++k) {
      const double x = c.speed.sensitivity_s * (c.round_reference[k] - mr) / g.mean();
      f.first += x * (c.round_values[k] - mt);
      f.second += x * x;
    }
  }
  for (size_t i = 0; i < cells.size(); ++i) {
    CellResult& c = cells[i];
    if (!c.ok) continue;
    const auto f = fit.find({c.cell.ranks, c.cell.batch});
    c.speed.coefficient =
        f != fit.end() && f->second.second > 0 ? std::clamp(f->second.first / f->second.second, 0.0, 2.0) : 1.0;
    if (use[i]) adjust_cell(c, groups.at(group_key(c)), statistic);
    const double e = c.judged_error();
    c.noise_limited = std::isfinite(e) && c.judged_noise() > std::abs(e);
  }
}

}  // namespace gcu::validate
