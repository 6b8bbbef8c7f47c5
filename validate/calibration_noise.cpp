// The calibration's sampling noise carried to each cell's prediction (calibration_noise.h).
#include "validate/calibration_noise.h"
#include "validate/link_gamma.h"

#include "calibrate/collective_fit.h"
#include "calibrate/profile_builder.h"
#include "calibrate/stats.h"
#include "validate/link_fits.h"
#include "validate/predict.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <ostream>
#include <optional>

namespace gcu::validate {

namespace {

// The row's field that the fit reads (collective_fit.h, row_time_s).
double& statistic_of(calibrate::SweepRow& r, const std::string& statistic) {
  if (statistic == "mean") return r.time_s.mean_w95;
  if (statistic == "median") return r.time_s.median;
  if (statistic == "p10") return r.time_s.p10;
  if (statistic == "min") return r.time_s.min;
  throw ValidateError("calibration noise: unknown fit statistic '" + statistic + "'");
}

// Whether two link levels cost an all-reduce alike (the profile was built from the state).
bool same_allreduce(const model::LinkLevel& a, const model::LinkLevel& b) {
  const std::string key = model::collective_key(compress::CollectiveKind::AllReduce);
  const auto ia = a.collectives.find(key), ib = b.collectives.find(key);
  if ((ia == a.collectives.end()) != (ib == b.collectives.end())) return false;
  if (ia == a.collectives.end()) return true;
  if (ia->second.size() != ib->second.size()) return false;
  const auto near = [](double x, double y) { return std::abs(x - y) <= 1e-6 * std::max({std::abs(x), std::abs(y), 1e-15}); };
  for (size_t i = 0; i < ia->second.size(); ++i) {
    const auto &x = ia->second[i], &y = ib->second[i];
    if (!near(x.alpha_s, y.alpha_s) || !near(x.beta_s_per_byte, y.beta_s_per_byte)) return false;
  }
  return true;
}

model::LinkLevel level_of(const calibrate::CollectivesState& c, const std::string& statistic) {
  return calibrate::link_level_from_sweeps(calibrate::fitted_sweeps(c, statistic));
}

double quantile_or_zero(std::vector<double> v, double q) { return v.empty() ? 0.0 : calibrate::quantile(std::move(v), q); }

// A measured time redrawn as t + z se, kept >= 10% of t (a time that is not positive and
// finite, or an se that is not finite, stays as it is and draws nothing).
void redraw_time(double& t, double se, std::normal_distribution<double>& z, std::mt19937_64& rng) {
  if (std::isfinite(t) && t > 0 && std::isfinite(se)) t = std::max(0.1 * t, t + z(rng) * se);
}

}  // namespace

calibrate::CollectivesState redraw_sweeps(const calibrate::CollectivesState& c, const std::string& statistic,
                                          std::mt19937_64& rng) {
  std::normal_distribution<double> z(0.0, 1.0);
  calibrate::CollectivesState out = c;
  const double median_factor = statistic == "median" ? 1.2533 : 1.0;  // se of a median, normal samples
  for (auto& s : out.sweeps) {
    if (!s.supported) continue;
    for (auto& r : s.rows) {
      const double n = double(std::max<size_t>(1, r.time_s.n));
      const double sd = std::max(0.0, r.time_s.p90 - r.time_s.p10) / 2.5631;
      redraw_time(statistic_of(r, statistic), median_factor * sd / std::sqrt(n), z, rng);
    }
  }
  return out;
}

void redraw_floors(model::Profile& p, std::mt19937_64& rng) {
  std::normal_distribution<double> z(0.0, 1.0);
  const auto redraw = [&](std::optional<model::CollectiveFloor>& f) {
    if (!f || f->se_s.size() != f->seconds.size()) return;
    for (size_t i = 0; i < f->seconds.size(); ++i) redraw_time(f->seconds[i], f->se_s[i], z, rng);
  };
  for (auto& [spec, fit] : p.compressors) {
    redraw(fit.allreduce_floor);
    redraw(fit.allgather_floor);
  }
}

double redraw_contention(const calibrate::ContentionState& k, double profile_factor, std::mt19937_64& rng) {
  const size_t n = k.rank_backward_slowdown.size();
  // Only a factor the profile took as measured (calibrate stores max(1, factor)); an edited
  // profile, or an older state without every rank's figures, keeps its own.
  if (n < 2 || k.rank_codec_slowdown.size() != n || std::abs(profile_factor - std::max(1.0, k.factor)) > 1e-9)
    return profile_factor;
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::vector<double> b(n), c(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t r = pick(rng);
    b[i] = k.rank_backward_slowdown[r];
    c[i] = k.rank_codec_slowdown[r];
  }
  const double f = std::sqrt(calibrate::median(b) * calibrate::median(c));
  return std::isfinite(f) ? std::max(1.0, f) : profile_factor;
}

std::vector<PredictionInterval> calibration_noise(const model::Profile& base,
                                                  const calibrate::CalibrationState& base_state,
                                                  const std::vector<calibrate::CalibrationState>& link_states,
                                                  const std::vector<CellInputs>& cells, int draws, uint64_t seed) {
  if (!base_state.collectives) throw ValidateError("calibration noise: the calibration state has no collective sweep");
  const std::string& stat = base_state.meta.fit_statistic;
  model::LinkLevel refit;
  try {
    refit = level_of(*base_state.collectives, stat);
  } catch (const std::exception& e) {
    throw ValidateError(std::string("calibration noise: the state's sweep cannot be fitted: ") + e.what());
  }
  if (!same_allreduce(refit, base.cluster.inter))
    throw ValidateError("calibration noise: the profile's all-reduce costs are not the state's sweep refitted "
                        "(a profile edited, or built from another calibration)");
  // Each link's rate, the one its cells are predicted with (kept in every draw).
  std::vector<double> link_rate(link_states.size(), 0.0);
  for (const auto& c : cells)
    if (c.link_state >= 0 && size_t(c.link_state) < link_rate.size()) link_rate[size_t(c.link_state)] = c.rate_gbps;
  std::mt19937_64 rng(seed);
  // The floors' own stream: the sweeps' draws stay those of a profile without floors.
  std::mt19937_64 floor_rng(seed * 0x9E3779B97F4A7C15ULL + 0x5EED);
  std::mt19937_64 contention_rng(seed * 0xD1B54A32D192ED03ULL + 0xC0);  // and the contention's
  std::vector<std::vector<double>> totals(cells.size());
  for (int d = 0; d < draws; ++d) {
    model::Profile p = base;
    redraw_floors(p, floor_rng);
    if (base_state.contention)
      p.cluster.overlap_contention = redraw_contention(*base_state.contention, base.cluster.overlap_contention,
                                                       contention_rng);
    try {
      p.cluster.inter = p.cluster.intra = level_of(redraw_sweeps(*base_state.collectives, stat, rng), stat);
    } catch (const std::exception&) {
      continue;  // a draw the fit cannot take: the cells get fewer draws
    }
    // comm_contention solved again against the redrawn fits, as calibrate solved it
    // against the measured ones: the gamma step's all-reduces take C beside the backward in
    // every draw (the factor is what the fits leave of C). A profile without the factor
    // (set to 1 by hand, or calibrated before it) keeps 1.
    if (base_state.gamma && base.cluster.comm_contention != 1.0)
      if (const auto f = calibrate::gamma_step_fit(*base_state.gamma, p)) {
        p.cluster.gamma = f->gamma;
        p.cluster.comm_contention = f->comm_contention;
      }
    // Each link's own sweep redrawn once per draw (its rate kept), shared by its cells.
    std::vector<std::optional<model::Profile>> link_profiles(link_states.size());
    for (size_t l = 0; l < link_states.size(); ++l) {
      if (!link_states[l].collectives) continue;
      calibrate::CalibrationState ls = link_states[l];
      ls.collectives = redraw_sweeps(*ls.collectives, ls.meta.fit_statistic, rng);
      try {
        link_profiles[l] = profile_for_link(p, ls, link_rate[l]);
      } catch (const std::exception&) {
      }
    }
    for (size_t i = 0; i < cells.size(); ++i) {
      const CellInputs& c = cells[i];
      const bool own_link = c.link_state >= 0;
      if (own_link && (size_t(c.link_state) >= link_profiles.size() || !link_profiles[size_t(c.link_state)])) continue;
      const model::Profile& use = own_link ? *link_profiles[size_t(c.link_state)] : p;
      try {
        CellPredictor cp(use, c.cell, own_link);
        if (c.link_gamma) {
          const model::InterferenceFitResult f = link_interference(*c.link_gamma, p, c.cell.ranks);
          cp.set_link_gamma(f.gamma, link_comm_contention_for_cells(f.comm_contention));
        }
        const double t = at(cp.predict(c.rate_gbps), Component::Total);
        if (std::isfinite(t) && t > 0) totals[i].push_back(t);
      } catch (const ValidateError&) {
      }
    }
  }
  std::vector<PredictionInterval> out(cells.size());
  for (size_t i = 0; i < cells.size(); ++i) {
    out[i].draws = int(totals[i].size());
    out[i].p10_s = quantile_or_zero(totals[i], 0.1);
    out[i].p90_s = quantile_or_zero(totals[i], 0.9);
  }
  return out;
}

void add_calibration_noise(const std::string& state_path, const model::Profile& profile,
                           const std::vector<LinkRate>& links, std::vector<CellResult>& cells, std::ostream& log) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(state_path, ec)) {
    log << "gcu validate: no calibration state at " << state_path
        << ": predictions without the calibration's noise interval\n";
    return;
  }
  try {
    const calibrate::CalibrationState base = calibrate::read_state_file(state_path);
    std::vector<calibrate::CalibrationState> link_states;
    std::vector<std::string> link_paths;
    std::vector<CellInputs> in;
    for (const CellResult& r : cells) {
      CellInputs c{r.cell, r.rate_used_gbps, -1, link_gamma_for(r.cell, links)};
      if (r.link_fits)
        for (const LinkRate& l : links)
          if (l.ranks == r.cell.ranks && l.link.name == r.cell.link.name && !l.state_path.empty()) {
            auto k = std::find(link_paths.begin(), link_paths.end(), l.state_path);
            if (k == link_paths.end()) {
              link_states.push_back(calibrate::read_state_file(l.state_path));
              link_paths.push_back(l.state_path);
              k = link_paths.end() - 1;
            }
            c.link_state = int(k - link_paths.begin());
          }
      in.push_back(c);
    }
    const auto iv = calibration_noise(profile, base, link_states, in);
    for (size_t i = 0; i < cells.size(); ++i) {
      cells[i].predicted_p10 = iv[i].p10_s;
      cells[i].predicted_p90 = iv[i].p90_s;
      cells[i].calibration_draws = iv[i].draws;
    }
  } catch (const std::exception& e) {
    log << "gcu validate: calibration noise not computed (" << state_path << "): " << e.what() << "\n";
  }
}

}  // namespace gcu::validate
