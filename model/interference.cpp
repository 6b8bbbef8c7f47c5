// Interference factors through the Predictor (interference.h).
#include "model/interference.h"

#include "model/iteration.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace gcu::model {

namespace {

bool positive_finite(double x) { return std::isfinite(x) && x > 0; }

void scale_level(LinkLevel& l, double s) {
  l.alpha_s *= s;
  if (l.bandwidth_gbps > 0) l.bandwidth_gbps /= s;
  for (auto& [kind, fits] : l.collectives)
    for (auto& f : fits) {
      f.alpha_s *= s;
      f.beta_s_per_byte *= s;
    }
}

// The step as a profile the Predictor runs: one tensor per bucket (a bucket cap of one
// byte keeps each on its own), every one ready at the backward's start, no forward or
// optimizer, scheme none.
Profile step_profile(const Profile& p, const BesideStep& step, const BesideCosting& costing) {
  if (step.bucket_bytes.empty()) throw ModelError("interference fit: the step has no all-reduces");
  if (!positive_finite(step.backward_alone_s))
    throw ModelError("interference fit: backward alone = " + std::to_string(step.backward_alone_s) +
                     " s must be finite and > 0");
  if (!positive_finite(costing.calls_scale))
    throw ModelError("interference fit: calls scale " + std::to_string(costing.calls_scale) + " must be finite and > 0");
  Profile q;
  q.cluster = p.cluster;
  if (costing.nodes > 0) q.cluster.nodes = costing.nodes;
  if (costing.gpus_per_node > 0) q.cluster.gpus_per_node = costing.gpus_per_node;
  if (costing.calls_scale != 1) {
    if (!q.cluster.comm_contention_reference) q.cluster.comm_contention_reference = q.cluster.inter;
    scale_level(q.cluster.intra, costing.calls_scale);
    scale_level(q.cluster.inter, costing.calls_scale);
  }
  q.cluster.gamma_from_stretch = false;
  q.model.name = "interference step";
  ComputeEntry e;
  e.batch_size = 1;
  e.backward_s = step.backward_alone_s;
  for (size_t i = 0; i < step.bucket_bytes.size(); ++i) {
    const double b = step.bucket_bytes[i];
    if (!positive_finite(b) || b > 1e15)
      throw ModelError("interference fit: bucket " + std::to_string(i) + " has " + std::to_string(b) +
                       " bytes (must be > 0 and <= 1e15)");
    q.model.tensors.push_back({"bucket " + std::to_string(i), {std::max<int64_t>(1, std::llround(b / kFp32Bytes))}});
    e.ready_s.push_back(0);
  }
  q.model.compute = {e};
  q.ddp.first_bucket_bytes = 1;
  q.ddp.bucket_cap_bytes = 1;
  return q;
}

BesideTimes run(const Predictor& pred, double gamma, double comm_contention) {
  Conditions c;
  c.gamma = gamma;
  c.comm_contention = comm_contention;
  const IterationResult r = pred.predict(c);
  return {r.backward_end_s, r.stream_end_s};
}

Predictor step_predictor(const Profile& q) {
  Setup s;
  s.scheme = "none";
  s.model = IterationModel::Event;
  s.mode = CompressionMode::Overlapped;
  return Predictor(q, s);
}

// The x in [lo, hi] where f(x) (increasing) meets target; at an end when it cannot.
template <class F>
double solve_increasing(F f, double target, double lo, double hi, bool& at_bound) {
  at_bound = false;
  if (f(lo) >= target) return lo;
  if (f(hi) <= target) {
    at_bound = true;
    return hi;
  }
  for (int i = 0; i < 60 && hi - lo > 1e-9; ++i) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) < target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

BesideTimes beside_times(const Profile& p, const BesideStep& step, const BesideCosting& costing, double gamma,
                         double comm_contention) {
  const Profile q = step_profile(p, step, costing);
  return run(step_predictor(q), gamma, comm_contention);
}

double InterferenceFitResult::backward_residual() const {
  return measured.backward_beside_s > 0 ? model.backward_end_s / measured.backward_beside_s - 1 : 0;
}
double InterferenceFitResult::comm_residual() const {
  return measured.comm_beside_s > 0 ? model.comm_end_s / measured.comm_beside_s - 1 : 0;
}

InterferenceFitResult fit_interference(const Profile& p, const BesideStep& step, const BesideCosting& costing) {
  if (!positive_finite(step.backward_beside_s) || !positive_finite(step.comm_beside_s))
    throw ModelError("interference fit: the measured backward beside the all-reduces (" +
                     std::to_string(step.backward_beside_s) + " s) and the all-reduces' time (" +
                     std::to_string(step.comm_beside_s) + " s) must be finite and > 0");
  const Profile q = step_profile(p, step, costing);
  const Predictor pred = step_predictor(q);
  InterferenceFitResult out;
  out.measured = step;
  // For each comm_contention the gamma that ends the backward when it was measured to end;
  // then the comm_contention that ends the all-reduces when they did. Both ends grow with
  // both factors (a slower backward leaves more of the calls beside it; longer calls slow
  // more of the backward).
  bool g_bound = false;
  const auto gamma_for = [&](double cc) {
    return solve_increasing([&](double g) { return run(pred, g, cc).backward_end_s; }, step.backward_beside_s, 1.0,
                            kGammaMax, g_bound);
  };
  const double cc = solve_increasing([&](double c) { return run(pred, gamma_for(c), c).comm_end_s; },
                                     step.comm_beside_s, 1.0, kCommContentionMax, out.comm_contention_at_bound);
  out.comm_contention = cc;
  out.gamma = gamma_for(cc);
  out.gamma_at_bound = g_bound;
  out.model = run(pred, out.gamma, out.comm_contention);
  if (!out.comm_contention_at_bound || !(out.model.comm_end_s > 0)) return out;
  // The calls ran longer beside the backward than any contended CPU side explains: the
  // rest is taken as the wire's (calls_stretch), so that gamma is the backward's rate
  // over the time the calls really ran.
  BesideCosting stretched = costing;
  const auto predictor_at = [&](double k) {
    stretched.calls_scale = costing.calls_scale * k;
    return step_predictor(step_profile(p, step, stretched));
  };
  bool k_bound = false, g2_bound = false;
  const auto gamma_at = [&](const Predictor& pk) {
    return solve_increasing([&](double g) { return run(pk, g, cc).backward_end_s; }, step.backward_beside_s, 1.0,
                            kGammaMax, g2_bound);
  };
  const double k = solve_increasing(
      [&](double kk) {
        const Predictor pk = predictor_at(kk);
        return run(pk, gamma_at(pk), cc).comm_end_s;
      },
      step.comm_beside_s, 1.0, 1e3, k_bound);
  const Predictor pk = predictor_at(k);
  out.gamma = gamma_at(pk);
  out.gamma_at_bound = g2_bound;
  out.calls_stretch = k;
  out.model = run(pk, out.gamma, cc);
  return out;
}

double rate_from_stretch(const Profile& p, double stretch) {
  if (!std::isfinite(stretch) || stretch < 1)
    throw ModelError("gamma_stretch = " + std::to_string(stretch) + " must be a number >= 1");
  if (stretch == 1 || p.model.compute.empty() || p.model.tensors.empty()) return 1;
  Profile q = p;
  q.cluster.gamma_from_stretch = false;
  Setup s;
  s.scheme = "none";
  s.model = IterationModel::Event;
  s.mode = CompressionMode::Overlapped;
  const Predictor pred(q, s);
  const Seconds target = stretch * pred.predict().backward_s;
  bool at_bound = false;
  return solve_increasing(
      [&](double g) {
        Conditions c;
        c.gamma = g;
        return pred.predict(c).backward_end_s;
      },
      target, 1.0, kGammaMax, at_bound);
}

}  // namespace gcu::model
