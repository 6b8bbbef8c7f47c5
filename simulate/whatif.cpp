// What-if analyses (whatif.h): sweeps, ratio needed for linear scaling, the codec-vs-bytes
// trade, bandwidth crossover and recommendation. Derivations: docs/model.md §5.
#include "simulate/whatif.h"
#include "util/text.h"

#include "compressors/registry.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>
#include <tuple>

namespace gcu::model {

const char* axis_name(Axis a) {
  switch (a) {
    case Axis::Bandwidth: return "bandwidth_gbps";
    case Axis::Gpus: return "gpus";
    case Axis::Nodes: return "nodes";
    case Axis::BatchSize: return "batch_size";
    case Axis::ComputeSpeedup: return "compute_speedup";
  }
  return "?";
}

Axis parse_axis(const std::string& s) {
  if (s == "bandwidth" || s == "bandwidth_gbps" || s == "bw") return Axis::Bandwidth;
  if (s == "gpus") return Axis::Gpus;
  if (s == "nodes") return Axis::Nodes;
  if (s == "batch" || s == "batch_size") return Axis::BatchSize;
  if (s == "speedup" || s == "compute_speedup") return Axis::ComputeSpeedup;
  throw ModelError("unknown sweep axis '" + s +
                   "' (known: bandwidth_gbps, gpus, nodes, batch_size, compute_speedup)");
}

std::pair<int, int> split_gpus(int gpus, int gpus_per_node) {
  if (gpus_per_node < 1)
    throw ModelError("cluster.gpus_per_node = " + std::to_string(gpus_per_node) + " must be >= 1");
  if (gpus < 1) throw ModelError("gpus = " + std::to_string(gpus) + " must be >= 1");
  if (gpus <= gpus_per_node) return {1, gpus};
  if (gpus % gpus_per_node != 0) {
    const int below = gpus / gpus_per_node * gpus_per_node;
    const std::string g = std::to_string(gpus_per_node);
    throw ModelError("gpus = " + std::to_string(gpus) + " is not a whole number of nodes of " + g +
                     " GPUs (cluster.gpus_per_node = " + g + "): use " + std::to_string(below) + " or " +
                     std::to_string(below + gpus_per_node) + " (a multiple of " + g +
                     "), at most " + g + " for one node, or change cluster.gpus_per_node");
  }
  return {gpus / gpus_per_node, gpus_per_node};
}

Seconds linear_scaling_s(const Predictor& pred, const Conditions& cond) {
  const ComputeEntry& c = pred.compute().compute;
  return (c.data_s + c.forward_s + c.backward_s + c.optimizer_s) / cond.compute_speedup;
}

namespace {
int as_int(double v, const char* what) {
  if (!(v >= 1) || v != std::floor(v) || v > 1e9)
    throw ModelError(std::string(what) + " = " + std::to_string(v) + " must be a whole number >= 1");
  return int(v);
}

}  // namespace

double global_batch(const Predictor& pred) {
  return double(pred.world()) * pred.compute().compute.batch_size;
}

IterationsEstimate iterations_for(const Profile& p, const Predictor& pred) {
  return iterations_to_target(p.convergence, pred.plan().scheme, pred.plan().traits, pred.world(),
                              batch_scaling(p, global_batch(pred)));
}

namespace {
std::optional<TtaResult> tta_for(const Profile& p, const Predictor& pred, Seconds iter_s,
                                 std::string* why) {
  try {
    return time_to_accuracy(iterations_for(p, pred), iter_s);
  } catch (const ModelError& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
}
}  // namespace

std::vector<SweepRow> sweep(const Profile& p, const SweepRequest& req) {
  if (req.schemes.empty()) throw ModelError("sweep: no schemes given");
  const std::string& fp32_name = compress::Registry::instance().baseline(compress::Baseline::FP32).name;
  std::vector<SweepRow> rows;
  // Predictors for the cheap axes are built once per scheme.
  std::map<std::string, std::unique_ptr<Predictor>> fixed;
  auto predictor_for = [&](const std::string& scheme, double x) -> std::unique_ptr<Predictor> {
    Setup s = req.base;
    s.scheme = scheme;
    if (req.axis == Axis::Gpus) {
      const int gpn = req.base.gpus_per_node > 0 ? req.base.gpus_per_node : p.cluster.gpus_per_node;
      std::tie(s.nodes, s.gpus_per_node) = split_gpus(as_int(x, "gpus"), gpn);
    }
    if (req.axis == Axis::Nodes) s.nodes = as_int(x, "nodes");
    if (req.axis == Axis::BatchSize) s.batch_size = as_int(x, "batch_size");
    return std::make_unique<Predictor>(p, s);
  };
  for (double x : req.values) {
    Conditions c = req.cond;
    if (req.axis == Axis::Bandwidth) {
      if (!(x > 0)) throw ModelError("bandwidth " + std::to_string(x) + " Gbps must be > 0");
      c.inter_bandwidth_gbps = x;
      // A single-node cluster has only the intra level: sweep that one.
      if ((req.base.nodes > 0 ? req.base.nodes : p.cluster.nodes) == 1) c.intra_bandwidth_gbps = x;
    }
    if (req.axis == Axis::ComputeSpeedup) {
      if (!(x > 0)) throw ModelError("compute speed-up " + std::to_string(x) + " must be > 0");
      c.compute_speedup = x;
    }
    const size_t first = rows.size();
    for (const auto& scheme : req.schemes) {
      std::unique_ptr<Predictor> own;
      const Predictor* pred;
      if (req.axis == Axis::Gpus || req.axis == Axis::Nodes || req.axis == Axis::BatchSize) {
        own = predictor_for(scheme, x);
        pred = own.get();
      } else {
        auto& f = fixed[scheme];
        if (!f) f = predictor_for(scheme, x);
        pred = f.get();
      }
      SweepRow r;
      r.scheme = pred->plan().scheme;
      r.x = x;
      r.iteration = pred->predict(c);
      r.linear_s = linear_scaling_s(*pred, c);
      if (req.with_tta) r.tta = tta_for(p, *pred, r.iteration.total_s, &r.tta_note);
      else r.tta_note = "not requested";
      rows.push_back(std::move(r));
    }
    const SweepRow* none = nullptr;
    for (size_t i = first; i < rows.size(); ++i)
      if (rows[i].scheme == fp32_name) none = &rows[i];
    if (none)
      for (size_t i = first; i < rows.size(); ++i)
        rows[i].speedup_vs_none = none->iteration.total_s / rows[i].iteration.total_s;
  }
  return rows;
}

// T(r) = iteration time with wire bytes / r is non-increasing in r: bisection on log r.
RatioNeeded ratio_for_linear_scaling(const Profile& p, const Setup& setup, const Conditions& cond,
                                     double within) {
  if (!(within >= 0) || !std::isfinite(within))
    throw ModelError("within = " + std::to_string(within) + " must be a finite number >= 0");
  const Predictor pred(p, setup);
  RatioNeeded out;
  out.target_s = (1 + within) * linear_scaling_s(pred, cond);
  auto T = [&](double r) {
    Conditions c = cond;
    c.wire_scale = cond.wire_scale / r;
    return pred.iteration_s(c);
  };
  out.at_ratio_1_s = T(1);
  if (out.at_ratio_1_s <= out.target_s) {
    out.ratio = 1;
    out.note = "already within target without compression";
    return out;
  }
  const double rmax = 1e6;
  if (T(rmax) > out.target_s) {
    out.note = "not reachable: even ratio 1e6 leaves latency, encode/decode or exposed time above target";
    return out;
  }
  double lo = 0, hi = std::log(rmax);  // T(e^lo) > target >= T(e^hi)
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (T(std::exp(mid)) > out.target_s ? lo : hi) = mid;
  }
  out.ratio = std::exp(hi);
  return out;
}

std::vector<TradeRow> codec_ratio_trade(const Profile& p, const Setup& setup, const Conditions& cond,
                                        const std::vector<double>& ks, double l) {
  if (!(l > 0)) throw ModelError("trade factor l = " + std::to_string(l) + " must be > 0");
  const Predictor pred(p, setup);
  std::vector<TradeRow> rows;
  for (double k : ks) {
    if (!(k > 0)) throw ModelError("codec speed-up k = " + std::to_string(k) + " must be > 0");
    Conditions c = cond;
    c.codec_speedup = cond.codec_speedup * k;
    c.wire_scale = cond.wire_scale * l * k;
    rows.push_back({k, l * k, pred.predict(c)});
  }
  return rows;
}

Crossover crossover_bandwidth(const Profile& p, const std::string& scheme, const std::string& baseline,
                              const Setup& setup, const Conditions& cond, Gbps lo_gbps, Gbps hi_gbps,
                              Metric metric) {
  if (!(lo_gbps > 0) || !(hi_gbps > lo_gbps))
    throw ModelError("crossover range [" + std::to_string(lo_gbps) + ", " + std::to_string(hi_gbps) +
                     "] Gbps must satisfy 0 < lo < hi");
  Setup s1 = setup, s0 = setup;
  s1.scheme = scheme;
  s0.scheme = baseline;
  const Predictor a(p, s1), b(p, s0);
  double ma = 1, mb = 1;  // TTA = iterations x iteration time; iterations don't depend on bandwidth
  std::string caveat;     // pilot predictions: the crossover moves within their intervals
  if (metric == Metric::Tta) {
    const auto ia = iterations_for(p, a);
    const auto ib = iterations_for(p, b);
    Crossover c;
    if (ia.status == TtaStatus::NeverReaches || ib.status == TtaStatus::NeverReaches) {
      c.note = (ia.status == TtaStatus::NeverReaches ? a.plan().scheme : b.plan().scheme) +
               " never reaches the target: no crossover";
      return c;
    }
    ma = *ia.iterations;
    mb = *ib.iterations;
    for (const auto* e : {&ia, &ib}) {
      const std::string& name = e == &ia ? a.plan().scheme : b.plan().scheme;
      if (is_fallback_basis(e->basis)) caveat += "; " + name + " TTA from the fallback constants";
      else if (e->status == TtaStatus::Uncertain) caveat += "; " + name + " TTA uncertain (" + e->basis + ")";
      else if (e->iterations_lo && e->iterations_hi)
        caveat += "; " + name + " iterations in [" + std::to_string(static_cast<long>(*e->iterations_lo)) + ", " +
                  std::to_string(static_cast<long>(*e->iterations_hi)) + "] (80%, " + e->basis + ")";
    }
  }
  const bool single = (setup.nodes > 0 ? setup.nodes : p.cluster.nodes) == 1;
  // d(bw) = scheme - baseline (negative: scheme wins).
  auto d = [&](double g) {
    Conditions c = cond;
    c.inter_bandwidth_gbps = g;
    if (single) c.intra_bandwidth_gbps = g;
    return ma * a.iteration_s(c) - mb * b.iteration_s(c);
  };
  const int n = 64;
  const double llo = std::log(lo_gbps), lhi = std::log(hi_gbps);
  double xprev = llo, dprev = d(lo_gbps);
  Crossover out;
  for (int i = 1; i <= n; ++i) {
    const double x = llo + (lhi - llo) * i / n;
    const double dx = d(std::exp(x));
    if ((dprev < 0) != (dx < 0)) {
      double l = xprev, h = x;
      const bool neg_at_l = dprev < 0;
      for (int it = 0; it < 60; ++it) {
        const double m = 0.5 * (l + h);
        ((d(std::exp(m)) < 0) == neg_at_l ? l : h) = m;
      }
      out.gbps = std::exp(0.5 * (l + h));
      out.scheme_wins_below = neg_at_l;
      std::ostringstream s;
      s << a.plan().scheme << (neg_at_l ? " wins below " : " wins above ") << *out.gbps
        << " Gbps against " << b.plan().scheme;
      out.note = s.str() + caveat;
      return out;
    }
    xprev = x;
    dprev = dx;
  }
  std::ostringstream s;
  s << "no crossover in [" << lo_gbps << ", " << hi_gbps << "] Gbps: " << a.plan().scheme
    << (dprev < 0 ? " wins" : " loses") << " against " << b.plan().scheme << " throughout";
  out.note = s.str() + caveat;
  return out;
}

std::vector<std::string> default_candidates() {
  std::vector<std::string> all;
  for (const auto& pat : compress::Registry::instance().recommend_grid())
    for (auto& s : expand_candidates(pat)) all.push_back(s);
  std::vector<std::string> out;
  for (const auto& s : all) {
    try {
      compress::make_compressor(s);
      out.push_back(s);
    } catch (const compress::CompressorError&) {
      // not registered in this build (or a parameter it does not take): left out
    }
  }
  return out;
}

namespace {
// Specs that `pattern` expands to, capped: stops counting above kMaxCandidates.
size_t count_candidates(const std::string& pattern) {
  size_t n = 1, pos = 0;
  while ((pos = pattern.find('{', pos)) != std::string::npos) {
    const auto close = pattern.find('}', pos);
    if (close == std::string::npos) break;  // reported by the expansion
    const size_t alts = 1 + static_cast<size_t>(std::count(pattern.begin() + pos, pattern.begin() + close, '|'));
    n *= alts;
    if (n > kMaxCandidates) return n;
    pos = close + 1;
  }
  return n;
}
}  // namespace

std::vector<std::string> expand_candidates(const std::string& pattern) {
  if (count_candidates(pattern) > kMaxCandidates)
    throw ModelError("candidate pattern " + util::quote(pattern, 100) + ": expands to more than " +
                     std::to_string(kMaxCandidates) + " specs (the limit); use fewer {a|b} alternatives");
  const auto open = pattern.find('{');
  if (open == std::string::npos) {
    if (pattern.find('}') != std::string::npos)
      throw ModelError("candidate pattern " + util::quote(pattern, 100) + ": '}' without '{'");
    return {pattern};
  }
  const auto close = pattern.find('}', open);
  if (close == std::string::npos)
    throw ModelError("candidate pattern " + util::quote(pattern, 100) + ": '{' without '}'");
  const std::string body = pattern.substr(open + 1, close - open - 1);
  std::vector<std::string> out;
  size_t pos = 0;
  for (;;) {
    const auto bar = body.find('|', pos);
    const std::string alt = body.substr(pos, bar == std::string::npos ? std::string::npos : bar - pos);
    if (alt.empty())
      throw ModelError("candidate pattern " + util::quote(pattern, 100) + ": empty alternative in " +
                       util::quote("{" + body + "}", 60));
    for (auto& rest : expand_candidates(pattern.substr(close + 1)))
      out.push_back(pattern.substr(0, open) + alt + rest);
    if (bar == std::string::npos) break;
    pos = bar + 1;
  }
  return out;
}

std::vector<Recommendation> recommend(const Profile& p, const std::vector<std::string>& candidates,
                                      const Setup& setup, const Conditions& cond, Metric metric) {
  std::vector<Recommendation> out;
  for (const auto& spec : candidates) {
    Recommendation r;
    r.scheme = spec;
    try {
      Setup s = setup;
      s.scheme = spec;
      const Predictor pred(p, s);
      r.scheme = pred.plan().scheme;
      r.iteration = pred.predict(cond);
      std::string why;
      r.tta = tta_for(p, pred, r.iteration->total_s, &why);
      if (metric == Metric::Tta && !r.tta) r.skipped = why;
    } catch (const ModelError& e) {
      r.skipped = e.what();
    }
    out.push_back(std::move(r));
  }
  // Key: usable first; by TTA, the schemes predicted to reach the target before those
  // whose pilot could not decide (uncertain: a point estimate without the confidence to
  // stake a training run on it), then the never-reaching; within a group by the metric.
  // Ranking uncertain ones by their point estimate among the confident ones picked a scheme
  // that never reached the target in 8 of 10 (target, link) settings of the recorded CNN
  // protocol (docs/validation-tta.md, "End to end").
  auto key = [&](const Recommendation& r) -> std::pair<int, double> {
    if (!r.skipped.empty() || !r.iteration) return {3, 0};
    if (metric == Metric::Iteration) return {0, r.iteration->total_s};
    if (!r.tta || r.tta->status == TtaStatus::NeverReaches || !r.tta->tta_s) return {2, 0};
    return {r.tta->status == TtaStatus::Uncertain ? 1 : 0, *r.tta->tta_s};
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const Recommendation& a, const Recommendation& b) { return key(a) < key(b); });
  return out;
}

}  // namespace gcu::model
