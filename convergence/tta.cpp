// Convergence multipliers and time-to-accuracy (tta.h). Derivations: docs/model.md §4.
#include "convergence/tta.h"

#include "compressors/registry.h"

#include <cmath>
#include <sstream>

namespace gcu::model {

namespace {
std::string tta_num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}
}  // namespace

const char* tta_status_name(TtaStatus s) {
  return s == TtaStatus::Reaches ? "reaches" : s == TtaStatus::NeverReaches ? "never" : "uncertain";
}

// Error feedback with a delta-contractive compressor acts like SGD with a delay of about
// 1/delta steps; the extra iterations grow with the delay beyond plain SGD's 1.
double ef_multiplier(double delta, double ef_scale) {
  if (!(delta > 0)) return kInf;
  return 1.0 + ef_scale * (1.0 / delta - 1.0);
}
// Unbiased compressor, E||C(g)-g||^2 = w ||g||^2: averaging over p workers divides the
// extra variance by p, and SGD's iterations grow with the gradient variance: 1 + w/p.
double unbiased_multiplier(double w, int p, double variance_scale) {
  return 1.0 + variance_scale * w / std::max(1, p);
}
// Biased without error feedback: only a (1 - e) part of the gradient signal survives
// each step in the worst case; extra iterations ~ e / (1 - e), infinite at e = 1.
double biased_multiplier(double e, double biased_scale) {
  if (e >= 1) return kInf;
  return 1.0 + biased_scale * e / (1.0 - e);
}

// McCandlish, Kaplan, Amodei et al. (2018), "An Empirical Model of Large-Batch Training":
// steps to a target S and samples E trade off as (S/S_min - 1)(E/E_min - 1) = 1, i.e.
// S(B) = S_min (1 + B_crit/B) with B_crit = E_min/S_min (the critical batch).
double batch_iterations_factor(double global_batch, double reference_batch, double critical_batch) {
  if (!(global_batch > 0) || !(reference_batch > 0) || !(critical_batch >= 0))
    throw ModelError("batch_iterations_factor: global batch " + std::to_string(global_batch) + ", reference " +
                     std::to_string(reference_batch) + ", critical " + std::to_string(critical_batch) +
                     ": need batches > 0 and critical >= 0");
  if (std::isinf(critical_batch)) return reference_batch / global_batch;
  return (1.0 + critical_batch / global_batch) / (1.0 + critical_batch / reference_batch);
}

double reference_global_batch(const Profile& p) {
  if (p.convergence.baseline_global_batch > 0) return p.convergence.baseline_global_batch;
  if (p.model.compute.empty()) return 0;
  return double(p.cluster.world()) * p.model.compute.front().batch_size;
}

BatchScaling batch_scaling(const Profile& p, double global_batch) {
  BatchScaling b;
  b.reference_batch = reference_global_batch(p);
  b.reference_defaulted = !(p.convergence.baseline_global_batch > 0);
  b.critical_defaulted = !p.convergence.critical_batch_size.has_value();
  b.critical_batch = b.critical_defaulted ? b.reference_batch : *p.convergence.critical_batch_size;
  b.global_batch = global_batch;
  if (global_batch > 0 && b.reference_batch > 0)
    b.factor = batch_iterations_factor(global_batch, b.reference_batch, b.critical_batch);
  return b;
}


std::string batch_scaling_assumption(const Profile& p) {
  const BatchScaling b = batch_scaling(p, 0);
  if (!(b.reference_batch > 0)) return "TTA: iterations to target taken as measured (no reference global batch)";
  std::string s = "TTA: iterations to target scale with the global batch B as S(B) = S_min (1 + B_crit/B) "
                  "(McCandlish et al. 2018): the convergence figures hold at B0 = " + tta_num(b.reference_batch) +
                  (b.reference_defaulted ? " (the profile's nodes x GPUs per node x batch per GPU)"
                                         : " (convergence.baseline_global_batch)") +
                  ", B_crit = " + tta_num(b.critical_batch) +
                  (b.critical_defaulted ? " (convergence.critical_batch_size absent: taken = B0)"
                                        : " (convergence.critical_batch_size)");
  if (b.critical_batch == 0) s += "; B_crit = 0: iterations do not depend on the global batch";
  return s;
}

namespace {
IterationsEstimate never(const std::string& why) {
  IterationsEstimate e;
  e.status = TtaStatus::NeverReaches;
  e.basis = why;
  return e;
}
}  // namespace

namespace {
IterationsEstimate scaled(IterationsEstimate e, const BatchScaling& b) {
  e.global_batch = b.global_batch;
  e.batch_factor = b.factor;
  if (e.status != TtaStatus::NeverReaches && e.iterations && b.factor != 1) {
    *e.iterations *= b.factor;
    if (e.iterations_lo) *e.iterations_lo *= b.factor;
    if (e.iterations_hi) *e.iterations_hi *= b.factor;
    e.basis += "; global batch " + tta_num(b.global_batch) + " vs " + tta_num(b.reference_batch) + " measured: iterations x" +
               tta_num(b.factor);
  }
  return e;
}
IterationsEstimate unscaled(const Convergence& conv, const std::string& scheme,
                            const compress::SchemeTraits& traits, int world);
}  // namespace

IterationsEstimate iterations_to_target(const Convergence& conv, const std::string& scheme,
                                        const compress::SchemeTraits& traits, int world,
                                        const BatchScaling& batch) {
  return scaled(unscaled(conv, scheme, traits, world), batch);
}

namespace {
// Lossless schemes and those with negligible error (registry facts) converge like the
// baseline when the profile has no figures for them; unknown specs do not.
bool converges_as_baseline(const std::string& scheme) {
  try {
    const compress::SchemeFacts& f = compress::Registry::instance().facts(scheme);
    return f.lossless || f.negligible_error;
  } catch (const compress::CompressorError&) {
    return false;
  }
}

// A pilot prediction (docs/model.md §4.2): multipliers relative to the pilot's T_0,
// applied to the profile's baseline iterations.
IterationsEstimate from_pilot(const PilotFigures& q, double baseline_iterations) {
  IterationsEstimate e;
  e.evidence = q.evidence;
  e.basis = q.basis.empty() ? "pilot" : q.basis;
  e.pilot_seeds = q.seeds.value_or(0);
  e.pilot_baseline_seeds = q.baseline_seeds.value_or(0);
  if (q.status == "never") {
    e.status = TtaStatus::NeverReaches;
    e.basis += ": never";  // the evidence is in e.evidence (outputs print it once)
    return e;
  }
  e.status = q.status == "reaches" ? TtaStatus::Reaches : TtaStatus::Uncertain;
  e.multiplier = *q.multiplier;
  e.iterations = baseline_iterations * *q.multiplier;
  if (q.multiplier_lo) e.iterations_lo = baseline_iterations * *q.multiplier_lo;
  if (q.multiplier_hi) e.iterations_hi = baseline_iterations * *q.multiplier_hi;
  if (q.widened) e.basis += " (interval widened: noise-scale cross-check disagrees)";
  return e;
}

IterationsEstimate unscaled(const Convergence& conv, const std::string& scheme,
                            const compress::SchemeTraits& traits, int world) {
  const auto& k = conv.constants;
  auto it = conv.schemes.find(scheme);
  const ConvergenceFigures* f = it == conv.schemes.end() ? nullptr : &it->second;
  if (f && f->reaches_target && !*f->reaches_target) return never("measured: never reached the target");
  if (f && f->iterations) {
    if (!(*f->iterations > 0))
      throw ModelError("convergence.schemes.\"" + scheme + "\".iterations = " + tta_num(*f->iterations) +
                       " must be > 0");
    IterationsEstimate e;
    e.iterations = *f->iterations;
    if (conv.baseline_iterations > 0) e.multiplier = *f->iterations / conv.baseline_iterations;
    e.basis = "measured";
    return e;
  }
  if (!(conv.baseline_iterations > 0))
    throw ModelError("convergence.baseline_iterations = " + tta_num(conv.baseline_iterations) +
                     ": needed (> 0) to predict time-to-accuracy of '" + scheme + "'");
  if (f && f->pilot) return from_pilot(*f->pilot, conv.baseline_iterations);
  double m = 1;
  std::string basis;
  if (!f) {
    if (!converges_as_baseline(scheme))
      throw ModelError("no convergence figures for scheme '" + scheme +
                       "': add convergence.schemes.\"" + scheme + "\" (relative_error, relative_error_ef)");
    basis = "baseline (no measurable compression error)";
  } else {
    const bool ef = f->error_feedback.value_or(traits.error_feedback);
    const std::optional<double> e_plain = f->relative_error;
    const std::optional<double> e_ef = f->relative_error_ef;
    if (ef) {
      const std::optional<double> e = e_ef ? e_ef : e_plain;
      if (!e)
        throw ModelError("convergence.schemes.\"" + scheme + "\": error feedback needs relative_error_ef or relative_error");
      const double delta = 1.0 - *e;
      m = ef_multiplier(delta, k.ef_scale);
      basis = std::string(kFallback) + "error feedback, delta=" + tta_num(delta);
    } else if (!traits.biased) {
      if (!e_plain)
        throw ModelError("convergence.schemes.\"" + scheme + "\".relative_error is missing");
      m = unbiased_multiplier(*e_plain, world, k.variance_scale);
      basis = std::string(kFallback) + "unbiased, w=" + tta_num(*e_plain) + ", p=" + std::to_string(world);
    } else {
      if (!e_plain)
        throw ModelError("convergence.schemes.\"" + scheme + "\".relative_error is missing");
      if (*e_plain > k.max_biased_error)
        return never(std::string(kFallback) + "biased without error feedback, relative error " + tta_num(*e_plain) + " > " +
                     tta_num(k.max_biased_error));
      m = biased_multiplier(*e_plain, k.biased_scale);
      basis = std::string(kFallback) + "biased without error feedback, e=" + tta_num(*e_plain);
    }
  }
  if (!std::isfinite(m) || m > k.max_multiplier)
    return never(basis + ": iterations multiplier " + tta_num(m) + " above " + tta_num(k.max_multiplier));
  // No measurable compression error (e.g. fp16's ~1e-8): the constants do not matter.
  if (std::fabs(m - 1) < 1e-6 && is_fallback_basis(basis)) basis.erase(0, std::string(kFallback).size());
  IterationsEstimate e;
  e.multiplier = m;
  e.iterations = conv.baseline_iterations * m;
  e.basis = basis;
  return e;
}
}  // namespace

TtaResult time_to_accuracy(const IterationsEstimate& it, Seconds iteration_s) {
  TtaResult r;
  r.status = it.status;
  r.basis = it.basis;
  r.evidence = it.evidence;
  r.multiplier = it.multiplier;
  r.batch_factor = it.batch_factor;
  r.global_batch = it.global_batch;
  r.pilot_seeds = it.pilot_seeds;
  r.pilot_baseline_seeds = it.pilot_baseline_seeds;
  if (it.status != TtaStatus::NeverReaches && it.iterations) {
    r.iterations = it.iterations;
    r.tta_s = *it.iterations * iteration_s;
    if (it.iterations_lo) r.tta_lo_s = *it.iterations_lo * iteration_s;
    if (it.iterations_hi) r.tta_hi_s = *it.iterations_hi * iteration_s;
  }
  return r;
}

std::optional<bool> tta_intervals_overlap(const TtaResult& a, const TtaResult& b) {
  if (!a.tta_s || !b.tta_s) return std::nullopt;
  const double alo = a.tta_lo_s.value_or(*a.tta_s), ahi = a.tta_hi_s.value_or(*a.tta_s);
  const double blo = b.tta_lo_s.value_or(*b.tta_s), bhi = b.tta_hi_s.value_or(*b.tta_s);
  return alo <= bhi && blo <= ahi;
}

}  // namespace gcu::model
