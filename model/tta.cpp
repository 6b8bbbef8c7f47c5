// Convergence multipliers and time-to-accuracy (tta.h). Derivations: docs/model.md §4.
#include "model/tta.h"

#include <cmath>
#include <sstream>

namespace gcu::model {

const char* tta_status_name(TtaStatus s) { return s == TtaStatus::Reaches ? "reaches" : "never"; }

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

namespace {
IterationsEstimate never(const std::string& why) {
  IterationsEstimate e;
  e.status = TtaStatus::NeverReaches;
  e.basis = why;
  return e;
}
std::string num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}
}  // namespace

IterationsEstimate iterations_to_target(const Convergence& conv, const std::string& scheme,
                                        const compress::SchemeTraits& traits, int world) {
  const auto& k = conv.constants;
  auto it = conv.schemes.find(scheme);
  const ConvergenceFigures* f = it == conv.schemes.end() ? nullptr : &it->second;
  if (f && f->reaches_target && !*f->reaches_target) return never("measured: never reached the target");
  if (f && f->iterations) {
    if (!(*f->iterations > 0))
      throw ModelError("convergence.schemes.\"" + scheme + "\".iterations = " + num(*f->iterations) +
                       " must be > 0");
    IterationsEstimate e;
    e.iterations = *f->iterations;
    if (conv.baseline_iterations > 0) e.multiplier = *f->iterations / conv.baseline_iterations;
    e.basis = "measured";
    return e;
  }
  if (!(conv.baseline_iterations > 0))
    throw ModelError("convergence.baseline_iterations = " + num(conv.baseline_iterations) +
                     ": needed (> 0) to predict time-to-accuracy of '" + scheme + "'");
  double m = 1;
  std::string basis;
  if (!f) {
    if (scheme != "none" && scheme != "fp16" && scheme != "bf16")
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
      basis = "error feedback, delta=" + num(delta);
    } else if (!traits.biased) {
      if (!e_plain)
        throw ModelError("convergence.schemes.\"" + scheme + "\".relative_error is missing");
      m = unbiased_multiplier(*e_plain, world, k.variance_scale);
      basis = "unbiased, w=" + num(*e_plain) + ", p=" + std::to_string(world);
    } else {
      if (!e_plain)
        throw ModelError("convergence.schemes.\"" + scheme + "\".relative_error is missing");
      if (*e_plain > k.max_biased_error)
        return never("biased without error feedback, relative error " + num(*e_plain) + " > " +
                     num(k.max_biased_error));
      m = biased_multiplier(*e_plain, k.biased_scale);
      basis = "biased without error feedback, e=" + num(*e_plain);
    }
  }
  if (!std::isfinite(m) || m > k.max_multiplier)
    return never(basis + ": iterations multiplier " + num(m) + " above " + num(k.max_multiplier));
  IterationsEstimate e;
  e.multiplier = m;
  e.iterations = conv.baseline_iterations * m;
  e.basis = basis;
  return e;
}

TtaResult time_to_accuracy(const IterationsEstimate& it, Seconds iteration_s) {
  TtaResult r;
  r.status = it.status;
  r.basis = it.basis;
  r.multiplier = it.multiplier;
  if (it.status == TtaStatus::Reaches && it.iterations) {
    r.iterations = it.iterations;
    r.tta_s = *it.iterations * iteration_s;
  }
  return r;
}

}  // namespace gcu::model
