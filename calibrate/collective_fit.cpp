// From a measured collective sweep to the profile's alpha/beta (see collective_fit.h).
#include "calibrate/collective_fit.h"

#include "calibrate/stats.h"
#include "model/collectives.h"
#include "model/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gcu::calibrate {

using compress::CollectiveKind;

double per_rank_bytes(CollectiveKind k, int world, const SweepRow& r) {
  return k == CollectiveKind::AllGather ? static_cast<double>(r.bytes) / world
                                        : static_cast<double>(r.bytes);
}

double row_time_s(const SweepRow& r, const std::string& statistic) {
  if (statistic == "mean") {
    if (!std::isfinite(r.time_s.mean_w95))
      throw FitError("the collective sweep has no mean time at " + std::to_string(r.bytes) +
                     " bytes (a state file written before means were kept): rerun the collectives step, or "
                     "fit on --fit-statistic median");
    return r.time_s.mean_w95;
  }
  if (statistic == "median") return r.time_s.median;
  if (statistic == "p10") return r.time_s.p10;
  if (statistic == "min") return r.time_s.min;
  throw FitError("unknown fit statistic '" + statistic + "' (known: mean, median, p10, min)");
}

PiecewiseOptions sweep_fit_options() {
  PiecewiseOptions o;
  o.max_segments = 5;
  o.target_max_rel = 0.05;
  o.target_from_x = model::kMiB;
  return o;
}

void fit_sweep(CollectiveSweep& s, const PiecewiseOptions& opt, const std::string& statistic) {
  if (!s.supported || s.rows.empty()) return;
  std::vector<Point> pts, large;
  for (const auto& r : s.rows) pts.push_back({per_rank_bytes(s.kind, s.world, r), row_time_s(r, statistic)});
  s.fit = fit_piecewise(pts, opt);
  const auto rel = relative_errors(s.fit, pts);
  s.quality = fit_quality(rel);
  std::vector<double> rel_large;
  for (size_t i = 0; i < pts.size(); ++i) {
    s.rows[i].fit_s = s.fit(pts[i].x);
    if (pts[i].x >= model::kMiB) rel_large.push_back(rel[i]);
  }
  s.quality_large = fit_quality(rel_large);
  std::vector<double> edges;
  for (const auto& seg : s.fit.segments) edges.push_back(edges.empty() ? 0.0 : seg.min_x);
  s.curve = fit_curve(pts, edges);
  const auto crel = relative_errors(s.curve, pts);
  s.curve_quality = fit_quality(crel);
  std::vector<double> crel_large;
  for (size_t i = 0; i < pts.size(); ++i)
    if (pts[i].x >= model::kMiB) crel_large.push_back(crel[i]);
  s.curve_quality_large = fit_quality(crel_large);
}

double ring_steps(CollectiveKind k, int p) {
  return k == CollectiveKind::AllReduce ? 2.0 * (p - 1) : static_cast<double>(p - 1);
}

double ring_byte_factor(CollectiveKind k, int p) {
  switch (k) {
    case CollectiveKind::AllReduce: return 2.0 * (p - 1) / p;
    case CollectiveKind::AllGather: return static_cast<double>(p - 1);
    case CollectiveKind::ReduceScatter: return static_cast<double>(p - 1) / p;
    case CollectiveKind::Broadcast: return 1.0;
  }
  return 1.0;
}

std::vector<model::SizeRangeFit> to_size_range_fits(const CollectiveSweep& s) {
  std::vector<model::SizeRangeFit> out;
  const int p = std::max(2, s.world);  // one rank: no communication; keep the raw line
  const double steps = ring_steps(s.kind, p), factor = ring_byte_factor(s.kind, p);
  for (size_t i = 0; i < s.fit.segments.size(); ++i) {
    const auto& seg = s.fit.segments[i];
    model::SizeRangeFit f;
    f.min_bytes = i == 0 ? 0.0 : seg.min_x;
    f.max_bytes = i + 1 == s.fit.segments.size() ? model::kInf : seg.max_x;
    f.alpha_s = seg.fit.intercept / steps;
    // The schema wants beta > 0; a latency-only range (slope 0) gets a negligible beta.
    f.beta_s_per_byte = std::max(seg.fit.slope / factor, 1e-18);
    out.push_back(f);
  }
  return out;
}

std::vector<model::SizeRangeFit> to_curve_fits(const CollectiveSweep& s) {
  std::vector<model::SizeRangeFit> out;
  const int p = std::max(2, s.world);
  const double steps = ring_steps(s.kind, p), factor = ring_byte_factor(s.kind, p);
  const auto& c = s.curve;
  for (size_t k = 0; k < c.edges.size() && k < c.slopes.size(); ++k) {
    model::SizeRangeFit f;
    f.min_bytes = c.edges[k];
    f.max_bytes = k + 1 < c.edges.size() ? c.edges[k + 1] : model::kInf;
    f.alpha_s = c.intercept / steps;
    // The schema wants beta > 0; a flat range (slope 0) gets a negligible beta.
    f.beta_s_per_byte = std::max(c.slopes[k] / factor, 1e-18);
    out.push_back(f);
  }
  return out;
}

std::vector<model::SizeRangeFit> curve_as_lines(const std::vector<model::SizeRangeFit>& curve, CollectiveKind k,
                                                int p) {
  std::vector<model::SizeRangeFit> out;
  const double steps = ring_steps(k, std::max(2, p)), factor = ring_byte_factor(k, std::max(2, p));
  double below = 0;  // the curve's per-byte time integrated over the ranges before this one
  for (const auto& r : curve) {
    model::SizeRangeFit l = r;
    l.alpha_s = r.alpha_s + factor * (below - r.beta_s_per_byte * r.min_bytes) / steps;
    out.push_back(l);
    if (std::isfinite(r.max_bytes)) below += r.beta_s_per_byte * (r.max_bytes - r.min_bytes);
  }
  return out;
}

namespace {

std::string bytes_text(double b) {
  char buf[32];
  if (b >= model::kMiB) std::snprintf(buf, sizeof buf, "%.3g MiB", b / model::kMiB);
  else if (b >= 1024) std::snprintf(buf, sizeof buf, "%.3g KiB", b / 1024);
  else std::snprintf(buf, sizeof buf, "%.0f B", b);
  return buf;
}

}  // namespace

std::vector<std::string> make_nondecreasing(std::vector<model::SizeRangeFit>& ranges, CollectiveKind k, int p,
                                            double trusted_from_bytes) {
  std::vector<std::string> notes;
  // Which ranges' lines may lower the one below: fitted from trusted_from_bytes up, or
  // made from such a line here.
  std::vector<bool> trusted;
  for (const auto& r : ranges) trusted.push_back(r.min_bytes >= trusted_from_bytes);
  const double steps = ring_steps(k, std::max(2, p)), factor = ring_byte_factor(k, std::max(2, p));
  auto at = [&](const model::SizeRangeFit& r, double n) { return steps * r.alpha_s + factor * n * r.beta_s_per_byte; };
  for (size_t j = ranges.size(); j-- > 1;) {
    model::SizeRangeFit& lo = ranges[j - 1];
    const model::SizeRangeFit hi = ranges[j];
    if (!trusted[j]) continue;
    if (lo.max_bytes != hi.min_bytes || !std::isfinite(lo.max_bytes)) continue;  // a gap: the base link between
    const double top = at(lo, lo.max_bytes), cap = at(hi, hi.min_bytes);
    if (!(top > cap * (1 + 1e-9))) continue;
    // Where the next range's line, extended down, crosses this one's (it is below at
    // max_bytes; it crosses only when this line is the steeper one).
    const double dbeta = factor * (lo.beta_s_per_byte - hi.beta_s_per_byte);
    const double cross = dbeta > 0 ? steps * (hi.alpha_s - lo.alpha_s) / dbeta : -model::kInf;
    std::string how;
    if (cross > lo.min_bytes) {
      // Inside the range: this line up to the crossing, the next range's from there.
      lo.max_bytes = cross;
      ranges[j].min_bytes = cross;
      how = "from " + bytes_text(cross) + " it follows the larger sizes' line";
    } else {
      // The next line is below this one over the whole range; extended further down it
      // could undercut the small sizes' latency. So: this line up to the next range's
      // starting cost, flat at that cost from there (the padding bound).
      const double reach = lo.beta_s_per_byte > 0 ? (cap - steps * lo.alpha_s) / (factor * lo.beta_s_per_byte) : -1;
      model::SizeRangeFit flat{std::max(double(lo.min_bytes), reach), lo.max_bytes, cap / steps, 1e-18};
      how = "from " + bytes_text(flat.min_bytes) + " it is held at " + ms_text(cap);
      if (reach > lo.min_bytes) {
        lo.max_bytes = reach;
        ranges.insert(ranges.begin() + static_cast<std::ptrdiff_t>(j), flat);
        trusted.insert(trusted.begin() + static_cast<std::ptrdiff_t>(j), true);
      } else {
        lo = flat;
        trusted[j - 1] = true;
      }
    }
    notes.push_back(std::string("collectives: the ") + compress::collective_name(k) + " fit up to " +
                    bytes_text(hi.min_bytes) + " rose to " + ms_text(top) + ", above the next range's " +
                    ms_text(cap) + " (noise: a message costs no more than a larger one); " + how + " (" +
                    std::to_string(int(std::lround(100 * (1 - cap / top)))) + "% lower at " +
                    bytes_text(hi.min_bytes) + ")");
  }
  return notes;
}

namespace {

// A sweep given only its piecewise fit (no curve: built by hand, or by an older fit): the
// curve through that fit at the sweep's own sizes, on its range edges.
CollectiveSweep with_curve_of_fit(const CollectiveSweep& s) {
  CollectiveSweep c = s;
  std::vector<Point> pts;
  for (const auto& r : s.rows) {
    const double x = per_rank_bytes(s.kind, s.world, r);
    pts.push_back({x, s.fit(x)});
  }
  std::vector<double> edges;
  for (const auto& seg : s.fit.segments) edges.push_back(edges.empty() ? 0.0 : seg.min_x);
  try {
    c.curve = fit_curve(pts, edges);
  } catch (const FitError&) {
    c.curve = {};
  }
  return c;
}

// The all-reduce's beta (seconds per byte of the nccl-tests size) from its largest
// sizes' segment, or the whole sweep's secant when that segment is implausible.
double allreduce_beta(const CollectiveSweep& s, const std::vector<model::SizeRangeFit>& ranges, std::string* note) {
  const double beta = ranges.back().beta_s_per_byte;
  if (beta > 0 && model::gbps_from_beta(beta) <= kMaxPlausibleGbps) return beta;
  double lo = model::kInf, hi = 0;
  for (const auto& r : s.rows) {
    lo = std::min(lo, per_rank_bytes(s.kind, s.world, r));
    hi = std::max(hi, per_rank_bytes(s.kind, s.world, r));
  }
  const double secant = hi > lo ? (s.fit(hi) - s.fit(lo)) / (hi - lo) / ring_byte_factor(s.kind, std::max(2, s.world)) : 0;
  if (!(secant > 0) || model::gbps_from_beta(secant) > kMaxPlausibleGbps)
    throw FitError("all-reduce sweep: no per-byte cost visible up to " + std::to_string(static_cast<int64_t>(hi)) +
                   " bytes (latency noise larger than the transfer): raise --max-bytes");
  if (note)
    *note = "cluster: the all-reduce's largest sizes showed no per-byte cost (latency noise); the bandwidth is "
            "the secant of the whole sweep's fit, up to " + std::to_string(static_cast<int64_t>(hi)) +
            " bytes (raise --max-bytes for a better one)";
  return secant;
}

}  // namespace

model::LinkLevel link_level_from_sweeps(const std::vector<CollectiveSweep>& sweeps, std::vector<std::string>* notes) {
  model::LinkLevel level;
  bool have_ar = false;
  for (const auto& s : sweeps) {
    if (!s.supported || s.fit.segments.empty()) continue;
    auto ranges = to_curve_fits(s.curve.slopes.empty() ? with_curve_of_fit(s) : s);
    if (ranges.empty()) {
      if (s.kind == CollectiveKind::AllReduce) throw FitError("all-reduce sweep: no curve could be fitted to its sizes");
      continue;
    }
    if (s.kind == CollectiveKind::AllReduce) {
      have_ar = true;
      level.alpha_s = ranges.front().alpha_s;
      std::string note;
      level.bandwidth_gbps = model::gbps_from_beta(allreduce_beta(s, ranges, &note));
      if (notes && !note.empty()) notes->push_back(note);
    }
    level.curves.insert(model::collective_key(s.kind));
    level.collectives[model::collective_key(s.kind)] = std::move(ranges);
  }
  if (!have_ar) throw FitError("no fitted all-reduce sweep: cannot derive the link's alpha and bandwidth");
  return level;
}

}  // namespace gcu::calibrate
