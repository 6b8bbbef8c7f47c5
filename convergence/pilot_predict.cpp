// Predictions from pilot records (pilot_predict.h).
#include "convergence/pilot_predict.h"

#include "convergence/pilot_late.h"

#include "compressors/registry.h"
#include "convergence/progress_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace gcu::calibrate {
namespace {

using Json = nlohmann::ordered_json;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

struct Runs {
  std::map<uint64_t, std::map<int, double>> evals;  // seed -> iteration -> metric
  std::vector<double> b_simple, rel_error, global_batch;  // the run records' (whole runs)
  int workers = 0;
  // seed -> (iteration, b_simple, relative_error so far) of the last eval kept, from eval
  // records that carry them (recent gcu pilot run records): a truncated pilot's figures.
  struct SoFar {
    int iteration = -1;
    double b_simple = kNan, relative_error = kNan;
  };
  std::map<uint64_t, SoFar> so_far;
  bool figures_of_pilot = true;  // false: a truncated pilot scored with whole-run figures
};

Json opt_num(const std::optional<double>& v) { return v && std::isfinite(*v) ? Json(*v) : Json(nullptr); }

// The eval and run records grouped by scheme, schemes in order of first appearance; the
// late pilots' records (after a config with branch_at > 0) apart: scheme -> branch point
// -> each seed's relative error over the branch and its evaluations (pilot_late.h).
struct Pilots {
  std::map<std::string, Runs> by;
  std::vector<std::string> order;
  std::map<std::string, LateBranches> late;
};

// A record's integer field (iteration, seed, branch_at): a number with an integer value in
// [0, 2^31), or the record is refused (a cast of 1e300 to int is undefined behaviour).
int64_t count_field(const nlohmann::json& r, const char* key, int64_t absent = -1) {
  if (!r.contains(key) && absent >= 0) return absent;
  const auto& v = r.at(key);
  const double x = v.is_number() ? v.get<double>() : -1;
  if (!(x >= 0 && x < 2147483648.0) || x != std::floor(x))
    throw std::invalid_argument(std::string("pilot predict: a record's '") + key + "' is not an integer in [0, 2^31): " +
                                v.dump().substr(0, 40));
  return static_cast<int64_t>(x);
}

// A record's optional figure: its value when a finite number, else NaN (absent, null, a
// string; the JSON reader itself refuses a number beyond the double's range).
double figure_or_nan(const nlohmann::json& r, const char* key) {
  const auto it = r.find(key);
  if (it == r.end() || !it->is_number()) return kNan;
  const double x = it->get<double>();
  return std::isfinite(x) ? x : kNan;
}

// The metric of an eval record (NaN: a null loss, a run that diverged).
double metric_of(const nlohmann::json& r, const PilotPredictOptions& o) {
  if (o.metric == "error") return 1 - r.at("accuracy").get<double>();
  return r.at("loss").is_null() ? kNan : r.at("loss").get<double>();
}

Pilots collect_runs(const std::vector<nlohmann::json>& records, const PilotPredictOptions& o) {
  Pilots pl;
  int branch_at = 0;  // of the latest config record: its runs are late pilots
  for (const auto& r : records) {
    const std::string type = r.at("type").get<std::string>();
    if (type == "config") branch_at = static_cast<int>(count_field(r, "branch_at", 0));
    if (type != "eval" && type != "run") continue;
    if (branch_at > 0) {
      LateBranch& lb = pl.late[r.at("scheme").get<std::string>()][branch_at];
      if (type == "eval") {
        const uint64_t seed = count_field(r, "seed");
        const int it = static_cast<int>(count_field(r, "iteration"));
        lb.evals[seed][it] = metric_of(r, o);
        if (const double e = figure_or_nan(r, "relative_error"); std::isfinite(e)) lb.running_error[seed][it] = e;
      } else if (const double e = figure_or_nan(r, "relative_error"); std::isfinite(e)) {
        lb.errors.push_back(e);
      }
      continue;
    }
    const std::string spec = r.at("scheme").get<std::string>();
    if (!pl.by.count(spec)) pl.order.push_back(spec);
    Runs& x = pl.by[spec];
    const uint64_t seed = count_field(r, "seed");
    if (type == "eval") {
      const int it = static_cast<int>(count_field(r, "iteration"));
      if (o.pilot_iterations > 0 && it > o.pilot_iterations) continue;
      x.evals[seed][it] = metric_of(r, o);
      if (r.contains("relative_error")) {  // running figures (b_simple may be null early on)
        auto& f = x.so_far[seed];
        if (it >= f.iteration)
          f = {it, figure_or_nan(r, "b_simple"), figure_or_nan(r, "relative_error")};
      }
    } else {
      if (const double b = figure_or_nan(r, "b_simple"); std::isfinite(b)) x.b_simple.push_back(b);
      x.rel_error.push_back(figure_or_nan(r, "relative_error"));
      const double gb = figure_or_nan(r, "global_batch");
      x.global_batch.push_back(std::isfinite(gb) ? gb : 0.0);
      x.workers = static_cast<int>(count_field(r, "workers", 0));
    }
  }
  // A truncated pilot takes its noise scale and relative error at its own end when the
  // eval records carry them; the run records cover the whole run (later training, where
  // the noise scale is larger: figures a real pilot would not have).
  if (o.pilot_iterations > 0)
    for (auto& [spec, x] : pl.by) {
      if (x.so_far.size() != x.evals.size() || x.evals.empty()) {
        x.figures_of_pilot = false;
        continue;
      }
      x.b_simple.clear(), x.rel_error.clear();
      for (const auto& [seed, f] : x.so_far) {
        if (std::isfinite(f.b_simple)) x.b_simple.push_back(f.b_simple);
        x.rel_error.push_back(f.relative_error);
      }
    }
  return pl;
}

// Iterations every baseline curve has.
std::set<int> common_iterations(const Runs& base) {
  std::set<int> its;
  bool first = true;
  for (const auto& [seed, ev] : base.evals) {
    std::set<int> k;
    for (const auto& [i, v] : ev) k.insert(i);
    if (first) its = k, first = false;
    else {
      std::set<int> m;
      for (int i : its) if (k.count(i)) m.insert(i);
      its = m;
    }
  }
  return its;
}

// The baseline's and the scheme's curves at `its`, seed by seed, over the scheme's seeds
// (all of the baseline's, or a subset: the sequential design pilots a candidate with one
// seed first); the scheme's missing iterations are NaN (stopped/diverged).
void aligned_curves(const Runs& base, const Runs& s, const std::string& spec, const std::set<int>& its,
                    std::vector<model::LossCurve>& bc, std::vector<model::LossCurve>& sc) {
  for (const auto& [seed, ev] : s.evals) {
    auto b = base.evals.find(seed);
    if (b == base.evals.end())
      throw std::invalid_argument("pilot predict: scheme '" + spec + "' has a run with seed " + std::to_string(seed) +
                                  " but the baseline has none to pair it with");
    model::LossCurve bcur, c;
    for (int i : its) {
      bcur.t.push_back(i), bcur.loss.push_back(b->second.at(i));
      c.t.push_back(i);
      auto v = ev.find(i);
      // A run stopped early at the stop loss keeps its last value; a diverged one is NaN.
      c.loss.push_back(v != ev.end() ? v->second : kNan);
    }
    bc.push_back(bcur), sc.push_back(c);
  }
}

// Every baseline seed's curve at `its` (the one-seed term's spread).
std::vector<model::LossCurve> baseline_curves(const Runs& base, const std::set<int>& its) {
  std::vector<model::LossCurve> out;
  for (const auto& [seed, ev] : base.evals) {
    model::LossCurve c;
    for (int i : its) c.t.push_back(i), c.loss.push_back(ev.at(i));
    out.push_back(c);
  }
  return out;
}

// The fit's options; the noise-scale terms only for an unbiased scheme without error
// feedback whose relative error `w` is known.
model::ProgressOptions progress_options(const PilotPredictOptions& o, const std::string& spec, const Runs& s,
                                        double b_simple, double w) {
  model::ProgressOptions po;
  po.target = o.target;
  po.baseline_iterations = o.baseline_iterations;
  po.bootstrap = o.bootstrap;
  po.max_multiplier = o.max_multiplier;
  const compress::SchemeFacts& facts = compress::Registry::instance().facts(spec);
  po.negligible_error = facts.lossless || facts.negligible_error;
  po.extrapolation_sigma_lo = o.extrapolation_sigma_lo;
  po.extrapolation_sigma_hi = o.extrapolation_sigma_hi;
  const auto traits = compress::make_compressor(spec)->traits();
  po.biased_without_feedback = o.biased_rule && traits.biased && !traits.error_feedback;
  if (!traits.biased && !traits.error_feedback && b_simple > 0 && !s.global_batch.empty() && s.workers > 0 &&
      std::isfinite(w) && w > 1e-6) {
    po.b_simple = b_simple, po.variance_w = w, po.global_batch = s.global_batch.front(), po.workers = s.workers;
  }
  return po;
}

Json prediction_json(const model::ProgressPrediction& p, double w, const std::set<int>& its, size_t seeds,
                     size_t baseline_seeds, bool figures_of_pilot) {
  Json j;
  j["status"] = model::pilot_status_name(p.status);
  j["iterations"] = opt_num(p.iterations);
  j["interval"] = p.lo && p.hi ? Json::array({*p.lo, *p.hi}) : Json(nullptr);
  j["interval_mass"] = 0.8;
  j["basis"] = model::progress_basis_name(p.basis);
  j["multiplier"] = p.iterations ? Json(p.multiplier) : Json(nullptr);
  j["rho"] = p.rho;
  j["tau"] = p.tau;
  j["holdout_rmse"] = {{"multiplier", p.holdout_rmse_multiplier}, {"lag", p.holdout_rmse_lag}};
  j["baseline_iterations"] = opt_num(p.baseline_iterations);
  j["baseline_extrapolated"] = p.baseline_extrapolated;
  j["asymptote"] = opt_num(p.asymptote);
  j["reach_fraction"] = p.reach_fraction;
  j["crossing_noise"] = opt_num(p.crossing_noise);
  j["noise_scale_multiplier"] = opt_num(p.noise_scale_multiplier);
  j["widened"] = p.widened;
  j["extrapolation_log_halfwidth"] = {{"lo", p.extrapolation_lo}, {"hi", p.extrapolation_hi}};
  j["seed_log_halfwidth"] = p.seed_term;
  j["relative_error"] = std::isfinite(w) ? Json(w) : Json(nullptr);
  j["pilot_iterations"] = its.empty() ? 0 : *its.rbegin();
  j["figures_over"] = figures_of_pilot ? "pilot" : "whole run";
  j["seeds"] = seeds;
  j["baseline_seeds"] = baseline_seeds;
  // Piloted with fewer seeds than the baseline, and either `never` (one seed's plateau or
  // rise is too thin a reason to rule a scheme out) or uncertain for a reason more seeds
  // can settle (a misfit, a turn, replicates that disagree: seed noise), not capped below
  // `reaches` whatever the seeds say (ProgressPrediction::seeds_cannot_settle): the
  // sequential design runs more seeds.
  j["more_seeds"] = seeds < baseline_seeds && (p.status == model::PilotStatus::Never ||
                                               (p.status == model::PilotStatus::Uncertain && !p.seeds_cannot_settle));
  j["evidence"] = p.evidence;
  return j;
}

// The stability rule (PilotPredictOptions::stable_looks): a decided status that one of
// the pilot's prefixes ending up to looks - 1 evaluations earlier does not reach becomes
// `uncertain`. `predict_at` predicts from the evaluations at the iterations given.
// Prefixes shorter than kMinLookEvals evaluations are not looked at.
template <class PredictAt>
void require_stable(model::ProgressPrediction& p, const std::set<int>& its, int looks, const PredictAt& predict_at) {
  constexpr size_t kMinLookEvals = 6;
  if (looks <= 1 || p.status == model::PilotStatus::Uncertain) return;
  std::set<int> prefix = its;
  for (int j = 1; j < looks && prefix.size() > kMinLookEvals; ++j) {
    prefix.erase(std::prev(prefix.end()));
    const model::PilotStatus q = predict_at(prefix).status;
    if (q == p.status) continue;
    p.evidence.push_back(std::string("unstable: `") + model::pilot_status_name(p.status) + "` at the pilot's end (iteration " +
                         std::to_string(*its.rbegin()) + "), `" + model::pilot_status_name(q) +
                         "` with the pilot ending at iteration " + std::to_string(*prefix.rbegin()));
    p.status = model::PilotStatus::Uncertain;
    p.seeds_cannot_settle = false;  // a decision on a threshold's edge is what more seeds settle
    return;
  }
}

// A target the baseline already meets at its first evaluation has nothing to predict
// (T_0 = 0: every multiplier would be 0/0; found by fuzz_pilot_records): refused, naming
// the baseline's mean value there. `its`: the iterations every baseline curve has.
void check_target_below_start(const Runs& base, const std::set<int>& its, const PilotPredictOptions& o) {
  if (its.empty()) throw std::invalid_argument("pilot predict: the baseline's runs share no evaluated iteration");
  const int first = *its.begin();
  double sum = 0;
  int finite = 0;
  for (const auto& [seed, ev] : base.evals)
    if (const double v = ev.at(first); std::isfinite(v)) sum += v, ++finite;
  const std::string at = "pilot predict: the baseline's " + o.metric + " at iteration " + std::to_string(first);
  if (finite == 0) throw std::invalid_argument(at + " is not a number in any run");
  if (sum / finite <= o.target)
    throw std::invalid_argument(at + " (" + std::to_string(sum / finite) + ") already meets the target " +
                                std::to_string(o.target) + ": choose a target below where training starts");
}

}  // namespace

void check_predict_options(const PilotPredictOptions& o) {
  const auto need = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("pilot predict: " + what);
  };
  need(std::isfinite(o.target), "the target must be a finite number, got " + std::to_string(o.target));
  need(o.metric == "loss" || o.metric == "error", "the metric must be loss or error, got '" + o.metric.substr(0, 40) + "'");
  need(o.pilot_iterations >= 0, "--pilot-iterations must be >= 0, got " + std::to_string(o.pilot_iterations));
  need(!o.baseline_iterations || (std::isfinite(*o.baseline_iterations) && *o.baseline_iterations > 0),
       "the baseline's iterations to target must be a finite number > 0");
  need(o.bootstrap >= 1 && o.bootstrap <= 100000, "--bootstrap must be in [1, 100000], got " + std::to_string(o.bootstrap));
  need(std::isfinite(o.max_multiplier) && o.max_multiplier > 1,
       "--max-multiplier must be a finite number > 1, got " + std::to_string(o.max_multiplier));
  need(std::isfinite(o.extrapolation_sigma_lo) && o.extrapolation_sigma_lo >= 0 &&
           std::isfinite(o.extrapolation_sigma_hi) && o.extrapolation_sigma_hi >= 0,
       "--extrapolation-sigma must be finite numbers >= 0");
  need(o.stable_looks >= 1, "--stable-looks must be >= 1, got " + std::to_string(o.stable_looks));
  need(o.probe_iterations >= 0, "--probe-iterations must be >= 0, got " + std::to_string(o.probe_iterations));
  need(std::isfinite(o.pace_slope) && o.pace_slope >= 0,
       "--pace-slope must be a finite number >= 0, got " + std::to_string(o.pace_slope));
  need(std::isfinite(o.late_min_ratio) && o.late_min_ratio >= 1,
       "--late-min-ratio must be a finite number >= 1, got " + std::to_string(o.late_min_ratio));
}

namespace {
// The pace model (pace.h) on one scheme's tta object: its late pilots' errors (each
// branch point's mean over seeds) against the pilot's `w` move the multiplier and the
// interval's ends; a "pace" object and an evidence line say by how much and why.
// Branch points at or beyond the estimate's T_0 say nothing of the way to its target and
// are left out. With probe_iterations K > 0 a branch's error is each seed's running error at
// its last evaluation <= N + K (a probe K iterations long), else the whole branch's.
// The level form (pace.h): the multiplier at least 1 + slope x the probes' mean error and
// the interval's upper end at least 1 + slope x their largest, its lower end the pilots',
// for errors below kPaceLevelMaxError.
void apply_pace_level(Json& j, const PaceShift& f, double t0, double slope) {
  const auto hi_e = std::max_element(f.probe_errors.begin(), f.probe_errors.end());
  j["pace"] = {{"form", "level"}, {"pilot_error", f.pilot_error}, {"branch_at", f.branch_at},
               {"probe_errors", f.probe_errors}, {"slope", slope}, {"probe_error", f.probe_error}};
  if (!(f.probe_error < kPaceLevelMaxError) || !j.at("iterations").is_number()) return;
  const double rho = j["iterations"].get<double>() / t0;
  const double est = level_multiplier(rho, f.probe_error, slope) * t0;
  j["iterations"] = est;
  if (j.contains("multiplier") && j["multiplier"].is_number()) j["multiplier"] = est / t0;
  // The interval spans both estimators: the pilots' own lower end (the level form only
  // raises), the upper end at least the largest branch's level.
  if (j.at("interval").is_array()) {
    const double lo = j["interval"][0].get<double>();
    const double hi = level_multiplier(j["interval"][1].get<double>() / t0, *hi_e, slope) * t0;
    j["interval"] = Json::array({std::min(lo, est), std::max(hi, est)});
  }
  if (est > rho * t0 * 1.01) {
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "pace (level): relative error %.3g at %zu branch point(s) below T_0: the multiplier is at least "
                  "1 + %.3g x %.3g = %.3g (the pilots gave %.3g)",
                  f.probe_error, f.branch_at.size(), slope, f.probe_error, 1 + slope * f.probe_error, rho);
    j["evidence"].push_back(buf);
  }
}

void apply_pace(Json& j, const LateBranches& branches, const compress::SchemeTraits& traits, double w,
                const PilotPredictOptions& o) {
  if (!pace_applies(traits.biased, traits.error_feedback) || !std::isfinite(w) || w < 0) return;
  const Json& t0j = j.at("baseline_iterations");
  if (!t0j.is_number() || !(t0j.get<double>() > 0)) return;
  const double t0 = t0j.get<double>();
  std::vector<int> at;
  std::vector<double> errs;
  for (const auto& [n, b] : branches) {
    if (!(n < t0)) continue;
    std::vector<double> seeds;
    if (o.probe_iterations > 0) {
      for (const auto& [seed, by_it] : b.running_error) {
        const auto it = by_it.upper_bound(n + o.probe_iterations);
        if (it != by_it.begin()) seeds.push_back(std::prev(it)->second);
      }
    } else {
      seeds = b.errors;
    }
    if (seeds.empty()) continue;
    double e = 0;
    for (double x : seeds) e += x / double(seeds.size());
    at.push_back(n);
    errs.push_back(e);
  }
  const auto f = pace_shift(w, at, errs, o.pace_slope);
  if (!f) return;
  if (o.pace_form == PaceForm::Level) {
    apply_pace_level(j, *f, t0, o.pace_slope);
    return;
  }
  j["pace"] = {{"pilot_error", f->pilot_error}, {"branch_at", f->branch_at}, {"probe_errors", f->probe_errors},
               {"slope", o.pace_slope}, {"shift", f->shift}, {"shift_lo", f->shift_lo}, {"shift_hi", f->shift_hi}};
  if (!j.at("iterations").is_number()) return;
  const double est = paced_multiplier(j["iterations"].get<double>() / t0, f->shift) * t0;
  j["iterations"] = est;
  if (j.contains("multiplier") && j["multiplier"].is_number()) j["multiplier"] = est / t0;
  if (j.at("interval").is_array()) {
    const double lo = paced_multiplier(j["interval"][0].get<double>() / t0, std::min(f->shift_lo, f->shift)) * t0;
    const double hi = paced_multiplier(j["interval"][1].get<double>() / t0, std::max(f->shift_hi, f->shift)) * t0;
    j["interval"] = Json::array({std::min(lo, est), std::max(hi, est)});
  }
  if (std::abs(f->shift) >= 0.01) {
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "pace: relative error %.3g in the pilot, %.3g later (probes at %zu branch point(s) below T_0); the "
                  "multiplier moves by %+.3g (slope %.3g per unit of error; interval %+.3g..%+.3g)",
                  f->pilot_error, f->probe_error, f->branch_at.size(), f->shift, o.pace_slope, f->shift_lo, f->shift_hi);
    j["evidence"].push_back(buf);
  }
}
}  // namespace

Json predict_from_pilots(const std::vector<nlohmann::json>& records, const PilotPredictOptions& o) {
  check_predict_options(o);
  Pilots pl = collect_runs(records, o);
  auto& by = pl.by;
  if (!by.count(o.baseline) || by[o.baseline].evals.empty())
    throw std::invalid_argument("pilot predict: no runs of the baseline '" + o.baseline + "'");
  const Runs& base = by[o.baseline];
  double b_simple = 0;
  for (double b : base.b_simple) b_simple += b / base.b_simple.size();
  const std::set<int> its = common_iterations(base);
  check_target_below_start(base, its, o);
  const double seed_sigma = model::baseline_seed_log_spread(baseline_curves(base, its));
  Json out = Json::object();
  for (const auto& spec : pl.order) {
    const Runs& s = by[spec];
    double w = 0;
    for (double e : s.rel_error) w += e / s.rel_error.size();
    model::ProgressOptions po = progress_options(o, spec, s, b_simple, w);
    if (o.one_seed_term && std::isfinite(seed_sigma)) po.seed_log_sigma = seed_sigma;
    const auto predict_at = [&](const std::set<int>& at) {
      std::vector<model::LossCurve> bc, sc;
      aligned_curves(base, s, spec, at, bc, sc);
      return model::predict_progress(bc, sc, po);
    };
    model::ProgressPrediction p = predict_at(its);
    require_stable(p, its, o.stable_looks, predict_at);
    out[spec] = prediction_json(p, w, its, s.evals.size(), base.evals.size(), s.figures_of_pilot && base.figures_of_pilot);
    if (o.late && pl.late.count(spec))
      apply_late(out[spec], pl.late.at(spec), pl.late.count(o.baseline) ? &pl.late.at(o.baseline) : nullptr, w, o);
    if (o.late && o.pace && pl.late.count(spec))
      apply_pace(out[spec], pl.late.at(spec), compress::make_compressor(spec)->traits(), w, o);
  }
  return out;
}

Json pilot_profile_entry(const Json& t) {
  Json e;
  e["status"] = t.at("status");
  e["basis"] = t.at("basis");
  const auto& t0 = t.at("baseline_iterations");
  const bool have = t0.is_number() && t0.get<double>() > 0;
  if (have && t.at("iterations").is_number()) e["multiplier"] = t["iterations"].get<double>() / t0.get<double>();
  if (have && t.at("interval").is_array()) {
    e["multiplier_lo"] = t["interval"][0].get<double>() / t0.get<double>();
    e["multiplier_hi"] = t["interval"][1].get<double>() / t0.get<double>();
  }
  if (t.at("widened").get<bool>()) e["widened"] = true;
  if (t.contains("seeds") && t.contains("baseline_seeds")) {
    e["seeds"] = t["seeds"];
    e["baseline_seeds"] = t["baseline_seeds"];
  }
  e["evidence"] = t.at("evidence");
  return e;
}

}  // namespace gcu::calibrate
