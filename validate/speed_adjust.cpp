// The machine's speed taken out of each cell's rounds (speed_adjust.h).
#include "validate/speed_adjust.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

namespace gcu::validate {

double CellResult::judged_error() const {
  return speed.applied ? speed.error : error[size_t(Component::Total)];
}

double CellResult::judged_uncertainty() const { return speed.applied ? speed.uncertainty : uncertainty; }

namespace {

// Every round of the cell has a finite, positive reference and value.
bool has_references(const CellResult& c) {
  if (c.round_reference.empty() || c.round_reference.size() != c.round_values.size()) return false;
  for (size_t k = 0; k < c.round_values.size(); ++k)
    if (!(c.round_reference[k] > 0) || !std::isfinite(c.round_reference[k]) || !std::isfinite(c.round_values[k]))
      return false;
  return true;
}

// A group's reference: the mean over every round of its cells, and how well that mean is
// known from the machine's round-to-round noise (the pooled within-cell standard deviation
// of the rounds' references, so that cells whose forward differs do not count as noise).
struct Group {
  double sum = 0, within_ss = 0;
  int n = 0, within_df = 0;
  double mean() const { return sum / n; }
  // The 80% interval of the mean, relative to it (0 without a second round anywhere).
  double rel_interval() const {
    return within_df > 0 ? 2 * student_t90(within_df) * std::sqrt(within_ss / within_df) / std::sqrt(double(n)) / mean()
                         : 0;
  }
};

void adjust_cell(CellResult& c, const Group& g, const std::string& statistic) {
  SpeedAdjustment& a = c.speed;
  a.reference_s = g.mean();
  a.speed.clear();
  a.round_values.clear();
  double sum = 0;
  const double ks = a.coefficient * a.sensitivity_s;
  for (size_t k = 0; k < c.round_values.size(); ++k) {
    const double s = c.round_reference[k] / a.reference_s;
    a.speed.push_back(s);
    a.round_values.push_back(c.round_values[k] - ks * (s - 1));
    sum += s;
  }
  a.mean_speed = sum / double(a.speed.size());
  a.value = c.measured[size_t(Component::Total)].of(statistic) - ks * (a.mean_speed - 1);
  if (!(a.value > 0)) {
    a.note = "the adjusted total is not positive (sensitivity " + std::to_string(ks) + " s)";
    return;
  }
  a.error = (c.predicted[size_t(Component::Total)] - a.value) / a.value;
  const double rounds = a.round_values.size() >= 2 ? round_interval_width(a.round_values) / a.value : c.spread;
  a.reference_uncertainty = std::abs(ks) * g.rel_interval() / a.value;
  a.uncertainty = std::hypot(rounds, a.reference_uncertainty);
  a.applied = std::isfinite(a.error) && std::isfinite(a.uncertainty);
  if (!a.applied) a.note = "the adjusted error is not finite";
}

}  // namespace

void apply_speed_adjustment(std::vector<CellResult>& cells, const std::string& statistic) {
  // The group's reference: every round of every cell of the same ranks, batch and link (the
  // forward and optimizer step of one model depend on nothing else, except that the
  // recorded grids ran the forward 2-8% slower at 200 Mbit/s than at the unlimited link).
  using Key = std::tuple<int, int, std::string>;
  std::map<Key, Group> groups;
  auto key = [](const CellResult& c) { return Key{c.cell.ranks, c.cell.batch, c.cell.link.name}; };
  for (const auto& c : cells)
    if (c.ok && has_references(c) && std::isfinite(c.speed.sensitivity_s)) {
      Group& g = groups[key(c)];
      double m = 0;
      for (double r : c.round_reference) m += r;
      m /= double(c.round_reference.size());
      for (double r : c.round_reference) {
        g.sum += r;
        g.within_ss += (r - m) * (r - m);
      }
      g.n += int(c.round_reference.size());
      g.within_df += int(c.round_reference.size()) - 1;
    }
  // The coefficient k per (ranks, batch): the least-squares slope, through 0, of the rounds'
  // deviations from their cell's mean total on S x their reference's deviations (relative to
  // the group's mean), pooled over the cells. k = 1 when the reference tracks every second
  // of compute the model says the total holds; at 4 ranks on 2 cores the slowest rank's
  // forward tracks it less (recorded grids: 0.3-0.6). Deviations within a cell have mean 0
  // whatever k is, so fitting it cannot move a cell's expected value; clipped to [0, 2].
  std::map<std::pair<int, int>, std::pair<double, double>> fit;  // (sum xy, sum xx)
  for (const auto& c : cells) {
    if (!c.ok || !has_references(c) || !std::isfinite(c.speed.sensitivity_s) || c.round_values.size() < 2) continue;
    const Group& g = groups.at(key(c));
    double mr = 0, mt = 0;
    for (size_t k = 0; k < c.round_values.size(); ++k) {
      mr += c.round_reference[k];
      mt += c.round_values[k];
    }
    mr /= double(c.round_values.size());
    mt /= double(c.round_values.size());
    auto& f = fit[{c.cell.ranks, c.cell.batch}];
    for (size_t k = 0; k < c.round_values.size(); ++k) {
      const double x = c.speed.sensitivity_s * (c.round_reference[k] - mr) / g.mean();
      f.first += x * (c.round_values[k] - mt);
      f.second += x * x;
    }
  }
  for (auto& c : cells) {
    if (!c.ok) continue;
    c.speed.applied = false;
    const auto f = fit.find({c.cell.ranks, c.cell.batch});
    c.speed.coefficient =
        f != fit.end() && f->second.second > 0 ? std::clamp(f->second.first / f->second.second, 0.0, 2.0) : 1.0;
    if (!has_references(c))
      c.speed.note = "no forward + optimizer time in every round";
    else if (!std::isfinite(c.speed.sensitivity_s))
      c.speed.note = "no finite sensitivity of the prediction to compute speed";
    else
      adjust_cell(c, groups.at(key(c)), statistic);
    const double e = c.judged_error();
    c.noise_limited = std::isfinite(e) && std::hypot(c.judged_uncertainty(), c.calibration_uncertainty) > std::abs(e);
  }
}

}  // namespace gcu::validate
