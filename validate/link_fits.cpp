// A shaped link's own collective fits in the profile (link_fits.h).
#include "validate/link_fits.h"

#include "calibrate/collective_fit.h"
#include "calibrate/profile_builder.h"
#include "model/units.h"
#include "simulate/error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gcu::validate {

namespace {

using compress::CollectiveKind;

// The smallest message (model bytes: per rank; an all-gather's sweep counts its output)
// of a supported sweep of kind k; infinity when the kind was not measured.
double smallest_measured(const std::vector<calibrate::CollectiveSweep>& sweeps, CollectiveKind k) {
  double m = std::numeric_limits<double>::infinity();
  for (const auto& s : sweeps)
    if (s.kind == k && s.supported)
      for (const auto& r : s.rows)
        m = std::min(m, calibrate::per_rank_bytes(k, std::max(1, s.world), r));
  return m;
}

// The sweep's own times between its sizes: one range per pair of neighbouring sizes from
// the first at or above `from` to the first at or above `to`, each the line through the
// two points (per-rank bytes, the fit statistic's time) in the model's ring terms
// (collective_fit.h). A range's latency cannot be negative: when the line's intercept is,
// the range is the line from the origin through the pair's midpoint. A falling pair
// (noise) gets a flat range at the pair's mean.
std::vector<model::SizeRangeFit> interpolated(const calibrate::CollectiveSweep& s, const std::string& statistic,
                                              double from, double to) {
  std::vector<std::pair<double, double>> pts;  // (per-rank bytes, seconds), ascending
  for (const auto& r : s.rows) {
    const double n = calibrate::per_rank_bytes(s.kind, s.world, r), t = calibrate::row_time_s(r, statistic);
    if (std::isfinite(n) && std::isfinite(t) && t > 0) pts.emplace_back(n, t);
  }
  std::sort(pts.begin(), pts.end());
  const double steps = calibrate::ring_steps(s.kind, s.world), factor = calibrate::ring_byte_factor(s.kind, s.world);
  std::vector<model::SizeRangeFit> out;
  for (size_t i = 0; i + 1 < pts.size(); ++i) {
    const auto [n1, t1] = pts[i];
    const auto [n2, t2] = pts[i + 1];
    if (n1 < from || n1 >= to || !(n2 > n1)) continue;
    const double slope = (t2 - t1) / (n2 - n1);
    model::SizeRangeFit r;
    r.min_bytes = n1;
    r.max_bytes = n2;
    if (slope > 0 && t1 - slope * n1 >= 0) {
      r.beta_s_per_byte = slope / factor;
      r.alpha_s = (t1 - slope * n1) / steps;
    } else if (slope > 0) {
      r.beta_s_per_byte = (t1 + t2) / (n1 + n2) / factor;
    } else {
      r.alpha_s = 0.5 * (t1 + t2) / steps;
    }
    out.push_back(r);
  }
  return out;
}

// The sweep's two largest sizes with a usable time (per-rank bytes, the fit statistic's
// time), largest first; fewer when the kind was not measured.
std::vector<std::pair<double, double>> top_points(const std::vector<calibrate::CollectiveSweep>& sweeps,
                                                  CollectiveKind k, const std::string& statistic) {
  std::vector<std::pair<double, double>> pts;
  for (const auto& s : sweeps)
    if (s.kind == k && s.supported)
      for (const auto& r : s.rows) {
        const double n = calibrate::per_rank_bytes(k, std::max(1, s.world), r), t = calibrate::row_time_s(r, statistic);
        if (std::isfinite(n) && std::isfinite(t) && t > 0) pts.emplace_back(n, t);
      }
  std::sort(pts.rbegin(), pts.rend());
  if (pts.size() > 2) pts.resize(2);
  return pts;
}

}  // namespace

bool long_flow_rate(std::vector<model::SizeRangeFit>& ranges, CollectiveKind k, int world, double from,
                    const std::vector<std::pair<double, double>>& top) {
  if (top.size() < 2 || !(top[1].first >= from)) return false;
  double n_sum = 0, t_sum = 0;
  for (const auto& [n, t] : top) {
    n_sum += n;
    t_sum += t;
  }
  if (!(n_sum > 0) || !(t_sum > 0)) return false;
  std::vector<model::SizeRangeFit> out;
  for (auto r : ranges) {
    if (double(r.min_bytes) >= from) continue;
    r.max_bytes = std::min<double>(r.max_bytes, from);
    out.push_back(r);
  }
  model::SizeRangeFit flow;
  flow.min_bytes = from;
  flow.max_bytes = model::kInf;
  flow.alpha_s = 0;
  flow.beta_s_per_byte = t_sum / (n_sum * calibrate::ring_byte_factor(k, world));
  out.push_back(flow);
  ranges = out;
  return true;
}

model::Profile profile_for_link(const model::Profile& base, const calibrate::CalibrationState& st, double rate_gbps) {
  if (!st.collectives) throw ValidateError("link-fits: the link's state file has no collective sweep");
  if (!(rate_gbps > 0)) throw ValidateError("link-fits: the link has no measured rate");
  const auto sweeps = calibrate::fitted_sweeps(*st.collectives, st.meta.fit_statistic);
  model::LinkLevel measured;
  try {
    measured = calibrate::link_level_from_sweeps(sweeps);
  } catch (const std::exception& e) {
    throw ValidateError(std::string("link-fits: the link's sweep cannot be fitted: ") + e.what());
  }
  const model::LinkLevel& from = base.cluster.inter;
  const double beta = model::beta_s_per_byte_from_gbps(rate_gbps);
  model::LinkLevel out = from;
  out.bandwidth_gbps = rate_gbps;
  out.collectives.clear();
  out.curves.clear();  // the spliced ranges below are separate lines (curves converted exactly)
  const int world = st.collectives->world;
  const auto lines = [&](const model::LinkLevel& l, const std::string& key, CollectiveKind k) {
    const auto it = l.collectives.find(key);
    if (it == l.collectives.end()) return std::vector<model::SizeRangeFit>{};
    return l.curves.count(key) ? calibrate::curve_as_lines(it->second, k, world) : it->second;
  };
  for (auto k : {CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::ReduceScatter,
                 CollectiveKind::Broadcast}) {
    const std::string key = model::collective_key(k);
    // Fitted ranges from `cut` up; for all-reduces, the sweep's own points between the two
    // thresholds (interpolated): the piecewise fit is held to its 5% target only from
    // 1 MiB up, and below it one noisy size bent a 4-rank range by 20%.
    const double cut = std::max(kLinkFitsMinBytes, smallest_measured(sweeps, k));
    std::vector<model::SizeRangeFit> between;
    if (k == CollectiveKind::AllReduce)
      for (const auto& sw : sweeps)
        if (sw.kind == k && sw.supported)
          between = interpolated(sw, st.meta.fit_statistic, kLinkFitsMinBytesAllReduce, cut);
    const double low = between.empty() ? cut : double(between.front().min_bytes);
    std::vector<model::SizeRangeFit> ranges;
    const std::vector<model::SizeRangeFit> from_lines = lines(from, key, k);
    const std::vector<model::SizeRangeFit> base_ranges =
        !from_lines.empty() ? from_lines : std::vector<model::SizeRangeFit>{{0, model::kInf, from.alpha_s, beta}};
    for (auto r : base_ranges) {
      if (double(r.min_bytes) >= low) continue;
      r.max_bytes = std::min<double>(r.max_bytes, low);
      r.beta_s_per_byte = beta;
      ranges.push_back(r);
    }
    if (!between.empty()) {
      between.back().max_bytes = std::max<double>(between.back().max_bytes, cut);
      ranges.insert(ranges.end(), between.begin(), between.end());
    }
    const std::vector<model::SizeRangeFit> measured_lines = lines(measured, key, k);
    for (auto r : measured_lines) {
      if (double(r.max_bytes) <= cut) continue;
      r.min_bytes = std::max<double>(r.min_bytes, cut);
      ranges.push_back(r);
    }
    // From 1 MiB per rank up, the all-gather at its long flows' rate (link_fits.h).
    if (k == CollectiveKind::AllGather && !measured_lines.empty())
      long_flow_rate(ranges, k, st.collectives->world, cut, top_points(sweeps, k, st.meta.fit_statistic));
    calibrate::make_nondecreasing(ranges, k, world);  // no range above the next one's start
    out.collectives[key] = ranges;
  }
  model::Profile p = base;
  // A collective's CPU side stays what the calibration's own link measured (comm_contention).
  if (!p.cluster.comm_contention_reference) p.cluster.comm_contention_reference = base.cluster.inter;
  p.cluster.inter = out;
  p.cluster.intra = out;
  return p;
}

void apply_link_fits(const model::Profile& base, const std::vector<Cell>& cells, const std::vector<LinkRate>& links,
                     std::vector<std::unique_ptr<CellPredictor>>& preds) {
  for (const LinkRate& l : links) {
    if (l.link.unlimited() || l.state_path.empty() || !(l.measured_gbps > 0)) continue;
    model::Profile p;
    try {
      p = profile_for_link(base, calibrate::read_state_file(l.state_path), l.measured_gbps);
    } catch (const ValidateError& e) {
      throw ValidateError("link " + l.link.name + " x" + std::to_string(l.ranks) + " (" + l.state_path +
                          "): " + e.what());
    }
    for (size_t i = 0; i < cells.size(); ++i)
      if (cells[i].ranks == l.ranks && cells[i].link.name == l.link.name)
        preds[i] = std::make_unique<CellPredictor>(p, cells[i], /*link_in_profile=*/true);
  }
}

}  // namespace gcu::validate
