// Relative progress model (convergence/progress_fit.h) on synthetic curves with known rho, tau
// and asymptote, and the never/uncertain decisions on constructed cases.
#include "convergence/progress_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

namespace gcu::model {
namespace {

// Baseline learning curve: L0(t) = 0.3 + 2 (t + 10)^-0.5 (initial loss 0.93).
double l0(double t) { return 0.3 + 2 * std::pow(std::max(0.0, t) + 10, -0.5); }

// Seeds: the curve plus a small deterministic, zero-mean-ish wiggle per seed.
std::vector<LossCurve> seeds(const std::function<double(double)>& f, double t_end = 300, int n = 3,
                             double noise = 0.003) {
  std::vector<LossCurve> out;
  for (int s = 0; s < n; ++s) {
    LossCurve c;
    for (double t = 0; t <= t_end + 1e-9; t += 10) {
      c.t.push_back(t);
      c.loss.push_back(f(t) + noise * std::sin(1.7 * t + 2.1 * s));
    }
    out.push_back(c);
  }
  return out;
}

const double kTarget = l0(3000);  // T_0 = 3000 exactly

TEST(ProgressFit, PowerLawRecoversItsParameters) {
  std::vector<double> t, y;
  for (double x = 10; x <= 1000; x += 10) t.push_back(x), y.push_back(l0(x));
  const PowerLaw f = fit_power_law(t, y);
  ASSERT_TRUE(f.ok);
  EXPECT_NEAR(f.a, 0.3, 0.03);
  EXPECT_NEAR(power_law_value(f, 5000), l0(5000), 0.005);
  EXPECT_NEAR(*power_law_time_to(f, kTarget), 3000, 300);
  EXPECT_FALSE(power_law_time_to(f, 0.1).has_value());  // below the asymptote: never
}

TEST(ProgressFit, FirstCrossingInterpolates) {
  LossCurve c{{0, 10, 20}, {1.0, 0.6, 0.2}};
  EXPECT_DOUBLE_EQ(*first_crossing(c, 0.4), 15);
  EXPECT_FALSE(first_crossing(c, 0.1).has_value());
}

TEST(ProgressFit, MultiplierRecovered) {
  const auto b = seeds(l0), s = seeds([](double t) { return l0(t / 1.6); });
  const ReferenceCurve ref(mean_curve(b));
  EXPECT_NEAR(fit_multiplier(ref, mean_curve(s), 0, 300), 1.6, 0.05);
  ProgressOptions o;
  o.target = kTarget;
  o.baseline_iterations = 3000;
  const auto p = predict_progress(b, s, o);
  EXPECT_EQ(p.status, PilotStatus::Reaches) << (p.evidence.empty() ? "" : p.evidence[0]);
  EXPECT_EQ(p.basis, ProgressBasis::Multiplier);
  EXPECT_NEAR(*p.iterations, 4800, 4800 * 0.05);
  EXPECT_LE(*p.lo, *p.iterations);
  EXPECT_GE(*p.hi, *p.iterations);
}

TEST(ProgressFit, LagRecovered) {
  const auto b = seeds(l0), s = seeds([](double t) { return l0(t - 50); });
  const ReferenceCurve ref(mean_curve(b));
  EXPECT_NEAR(fit_lag(ref, mean_curve(s), 0, 300), 50, 3);
  ProgressOptions o;
  o.target = kTarget;
  o.baseline_iterations = 3000;
  const auto p = predict_progress(b, s, o);
  EXPECT_EQ(p.status, PilotStatus::Reaches) << (p.evidence.empty() ? "" : p.evidence[0]);
  EXPECT_EQ(p.basis, ProgressBasis::Lag);
  EXPECT_NEAR(p.tau, 50, 3);
  EXPECT_NEAR(*p.iterations, 3050, 30);
}

TEST(ProgressFit, BaselineExtrapolatedWhenNotMeasured) {
  const auto b = seeds(l0, 600), s = seeds([](double t) { return l0(t / 1.3); }, 600);
  ProgressOptions o;
  o.target = kTarget;
  const auto p = predict_progress(b, s, o);
  EXPECT_TRUE(p.baseline_extrapolated);
  EXPECT_NEAR(p.baseline_iterations, 3000, 3000 * 0.2);
  EXPECT_NEAR(p.multiplier, 1.3, 0.07);
}

TEST(ProgressFit, AsymptoteAboveTargetIsNever) {
  // Plateau at 0.55 > target 0.336: the scheme's own power law says it never gets there.
  const auto b = seeds(l0), s = seeds([](double t) { return 0.55 + 1.2 * std::pow(t + 5, -0.7); });
  ProgressOptions o;
  o.target = kTarget;
  o.baseline_iterations = 3000;
  const auto p = predict_progress(b, s, o);
  EXPECT_EQ(p.status, PilotStatus::Never);
  ASSERT_TRUE(p.asymptote.has_value());
  EXPECT_NEAR(*p.asymptote, 0.55, 0.05);
  EXPECT_FALSE(p.iterations.has_value());
  bool said = false;
  for (const auto& e : p.evidence) said |= e.find("plateau") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(ProgressFit, DivergenceIsNever) {
  const auto b = seeds(l0);
  auto s = seeds([](double t) { return t < 200 ? l0(t) : NAN; });
  ProgressOptions o;
  o.target = kTarget;
  o.baseline_iterations = 3000;
  const auto p = predict_progress(b, s, o);
  EXPECT_EQ(p.status, PilotStatus::Never);
  EXPECT_NE(p.evidence.at(0).find("divergence"), std::string::npos);
}

TEST(ProgressFit, DisagreeingSeedsAreUncertain) {
  // One seed plateaus far above the target, two track the baseline: replicates disagree.
  const auto b = seeds(l0);
  auto s = seeds([](double t) { return l0(t / 1.2); });
  s[0] = seeds([](double t) { return 0.7 + 0.23 * std::pow(0.99, t); }, 300, 1)[0];
  ProgressOptions o;
  o.target = kTarget;
  o.baseline_iterations = 3000;
  const auto p = predict_progress(b, s, o);
  EXPECT_EQ(p.status, PilotStatus::Uncertain) << pilot_status_name(p.status);
}

TEST(ProgressFit, NoiseScaleCrossCheckWidens) {
  EXPECT_DOUBLE_EQ(noise_scale_multiplier(0, 64, 1.0, 4), 1.25);            // 1 + w/n
  EXPECT_DOUBLE_EQ(noise_scale_multiplier(64, 64, 1.0, 4), (1 + 2 + 0.25) / 2);
  const auto b = seeds(l0), s = seeds([](double t) { return l0(t / 1.1); });
  ProgressOptions o;
  o.target = kTarget;
  o.baseline_iterations = 3000;
  o.b_simple = 640, o.global_batch = 64, o.workers = 2, o.variance_w = 8;  // M ~ 8.3 vs 1.1
  const auto p = predict_progress(b, s, o);
  EXPECT_TRUE(p.widened);
  EXPECT_GE(*p.hi, *p.noise_scale_multiplier * 3000 - 1);
  // The theory says much slower than the pilot: not a confident reach.
  EXPECT_EQ(p.status, PilotStatus::Uncertain) << pilot_status_name(p.status);
  EXPECT_TRUE(p.seeds_cannot_settle);  // a theory figure: more seeds do not move it
  o.variance_w = 0.01;  // M ~ 1.0 vs 1.1: they agree, the fit stands
  const auto q = predict_progress(b, s, o);
  EXPECT_FALSE(q.widened);
  EXPECT_EQ(q.status, PilotStatus::Reaches) << pilot_status_name(q.status);
}

bool says(const ProgressPrediction& p, const std::string& what) {
  for (const auto& e : p.evidence)
    if (e.find(what) != std::string::npos) return true;
  return false;
}

std::string evidence(const ProgressPrediction& p) {
  std::string out;
  for (const auto& e : p.evidence) out += e + "; ";
  return out;
}

// The target at T_0 = 3000, T_0 given as measured.
ProgressOptions measured_t0() {
  ProgressOptions o;
  o.target = kTarget;
  o.baseline_iterations = 3000;
  return o;
}

TEST(ProgressFit, TooLittleProgressIsUncertain) {
  // The scheme's loss falls 0.09 in the pilot, the baseline's 0.52: a fit of a curve that
  // has barely moved is an extrapolation (signSGD's slow start), whatever it says.
  const auto b = seeds(l0), s = seeds([](double t) { return l0(0) - 0.0003 * t; });
  const ProgressOptions o = measured_t0();
  const auto p = predict_progress(b, s, o);
  EXPECT_NE(p.status, PilotStatus::Reaches) << pilot_status_name(p.status);
  EXPECT_TRUE(says(p, "too early"));
  // The same scheme on par with the baseline is not "too early".
  const auto q = predict_progress(b, seeds([](double t) { return l0(t / 1.2); }), o);
  EXPECT_FALSE(says(q, "too early"));
}

TEST(ProgressFit, LossGivenBackIsNever) {
  // Tracks the baseline, then climbs back: by the pilot's end it has lost ~60% of its best
  // progress while the baseline kept falling (the onset of divergence).
  const auto b = seeds(l0), s = seeds([](double t) { return t < 150 ? l0(t) : l0(150) + 0.002 * (t - 150); });
  const ProgressOptions o = measured_t0();
  const auto p = predict_progress(b, s, o);
  EXPECT_EQ(p.status, PilotStatus::Never) << pilot_status_name(p.status);
  EXPECT_TRUE(says(p, "rising loss"));
  // A small bump (5% of the progress) is noise, not a rise.
  const auto q = predict_progress(b, seeds([](double t) { return t < 250 ? l0(t) : l0(250) + 0.0005 * (t - 250); }), o);
  EXPECT_FALSE(says(q, "rising loss"));
}

// A pilot whose loss turns upward at its end (5-25% of its best progress given back,
// beyond twice the standard error, the baseline still falling) is at most `uncertain`:
// the multiplier fitted before the turn is not extrapolated (EF-signSGD and ef(topkc) on
// fortunes, docs/validation-tta.md). The same pilot without the turn reaches.
TEST(ProgressFit, LossTurningUpAtThePilotsEndIsAtMostUncertain) {
  const auto b = seeds(l0);
  ProgressOptions o = measured_t0();
  o.target = l0(400), o.baseline_iterations = 400;  // near enough that no plateau is fitted
  const auto turn = [](double t) { return t < 295 ? l0(t / 1.1) : l0(295 / 1.1) + 0.007 * (t - 295); };
  const auto p = predict_progress(b, seeds(turn), o);  // ~6% of its progress given back
  EXPECT_EQ(p.status, PilotStatus::Uncertain) << pilot_status_name(p.status) << ": " << evidence(p);
  EXPECT_TRUE(says(p, "turning up")) << evidence(p);
  EXPECT_FALSE(says(p, "rising loss"));
  EXPECT_FALSE(says(p, "plateau"));  // the turn alone holds it back
  ASSERT_TRUE(p.iterations);
  const auto q = predict_progress(b, seeds([](double t) { return l0(t / 1.1); }), o);
  EXPECT_EQ(q.status, PilotStatus::Reaches) << pilot_status_name(q.status);
  EXPECT_FALSE(says(q, "turning up"));
  // A rise within twice the seeds' standard error is not a turn.
  const auto noisy = seeds(turn, 300, 3, 0.2);
  EXPECT_FALSE(says(predict_progress(b, noisy, o), "turning up"));
}

// A biased scheme without error feedback is at most `uncertain` until its pilot reaches
// the target (no guarantee it approaches the baseline's loss); negligible-error schemes
// and pilots already past the target are exempt, and the point estimate does not move.
TEST(ProgressFit, BiasedWithoutFeedbackIsAtMostUncertain) {
  const auto b = seeds(l0), s = seeds([](double t) { return l0(t / 1.2); });
  ProgressOptions o = measured_t0();
  const auto unbiased = predict_progress(b, s, o);
  ASSERT_EQ(unbiased.status, PilotStatus::Reaches) << pilot_status_name(unbiased.status);
  o.biased_without_feedback = true;
  const auto biased = predict_progress(b, s, o);
  EXPECT_EQ(biased.status, PilotStatus::Uncertain) << pilot_status_name(biased.status);
  EXPECT_TRUE(says(biased, "biased scheme without error feedback"));
  EXPECT_TRUE(biased.seeds_cannot_settle);  // no seed count lifts the cap
  EXPECT_FALSE(unbiased.seeds_cannot_settle);
  ASSERT_TRUE(biased.iterations);
  EXPECT_DOUBLE_EQ(*biased.iterations, *unbiased.iterations);
  o.negligible_error = true;  // a 16-bit cast (registry fact): not held back
  EXPECT_EQ(predict_progress(b, s, o).status, PilotStatus::Reaches);
  // A pilot that has itself crossed the target (l0(150 / 1.2) at t = 150 < 300) reaches.
  o.negligible_error = false;
  o.target = l0(150), o.baseline_iterations = 150;
  const auto crossed = predict_progress(b, s, o);
  EXPECT_EQ(crossed.status, PilotStatus::Reaches) << pilot_status_name(crossed.status);
  EXPECT_FALSE(says(crossed, "biased scheme"));
  EXPECT_FALSE(crossed.seeds_cannot_settle);
}

// The extrapolation term: a compressing scheme's interval widens by sigma x ln(T_0 / P)
// in quadrature (asymmetric: upwards more); a negligible-error one (fp16) keeps the
// bootstrap's.
TEST(ProgressFit, ExtrapolationWidensCompressingSchemesOnly) {
  const auto b = seeds(l0), s = seeds([](double t) { return l0(t / 1.6); });
  ProgressOptions o = measured_t0();
  o.negligible_error = true;  // fp16, bf16, none (registry facts)
  const auto exact = predict_progress(b, s, o);
  o.negligible_error = false;
  const auto lossy = predict_progress(b, s, o);
  ASSERT_TRUE(exact.hi && lossy.hi && exact.lo && lossy.lo);
  EXPECT_DOUBLE_EQ(exact.extrapolation_hi, 0);
  EXPECT_DOUBLE_EQ(*lossy.iterations, *exact.iterations);  // the point estimate does not move
  const double len = std::log(3000.0 / 300.0);
  EXPECT_NEAR(lossy.extrapolation_hi, o.extrapolation_sigma_hi * len, 1e-12);
  EXPECT_NEAR(lossy.extrapolation_lo, o.extrapolation_sigma_lo * len, 1e-12);
  const double x = *lossy.iterations;
  EXPECT_GE(std::log(*lossy.hi / x), lossy.extrapolation_hi - 1e-12);
  EXPECT_GE(std::log(x / *lossy.lo), lossy.extrapolation_lo - 1e-12);
  EXPECT_GT(*lossy.hi, *exact.hi);
  EXPECT_LT(*lossy.lo, *exact.lo);
  // A longer extrapolation widens more.
  o.baseline_iterations = 30000;
  o.target = l0(30000);
  const auto far = predict_progress(b, s, o);
  ASSERT_TRUE(far.hi);
  EXPECT_NEAR(far.extrapolation_hi, o.extrapolation_sigma_hi * std::log(30000.0 / 300.0), 1e-12);
  EXPECT_GT(far.extrapolation_hi, lossy.extrapolation_hi);
}

// The one-seed term: the baseline's seed-to-seed spread of a fitted multiplier (0 for
// identical seeds, about the seeds' own ln rho spread otherwise), added in quadrature to
// a one-seed scheme's interval and not to a three-seed one's.
TEST(ProgressFit, OneSeedTermFromTheBaselinesSpread) {
  EXPECT_NEAR(baseline_seed_log_spread(seeds(l0, 300, 3, 0)), 0, 1e-3);
  EXPECT_TRUE(std::isnan(baseline_seed_log_spread(seeds(l0, 300, 1))));
  std::vector<LossCurve> spread;
  for (double r : {0.9, 1.0, 1.1}) spread.push_back(seeds([r](double t) { return l0(t / r); }, 300, 1, 0)[0]);
  const double s = baseline_seed_log_spread(spread);
  EXPECT_GT(s, 0.05);
  EXPECT_LT(s, 0.2);
  const auto b = seeds(l0), sch = seeds([](double t) { return l0(t / 1.6); });
  ProgressOptions o = measured_t0();
  o.seed_log_sigma = 0.2;
  const auto three = predict_progress(b, sch, o);
  const auto one = predict_progress({b[0]}, {sch[0]}, o);
  ASSERT_TRUE(one.lo && one.hi && three.lo && three.hi);
  EXPECT_DOUBLE_EQ(three.seed_term, 0);
  EXPECT_NEAR(one.seed_term, 1.2816 * 0.2, 1e-12);
  EXPECT_GE(std::log(*one.hi / *one.iterations), one.seed_term - 1e-12);
  EXPECT_GE(std::log(*one.iterations / *one.lo), one.seed_term - 1e-12);
  EXPECT_NEAR(*one.iterations, 4800, 4800 * 0.05);
}

}  // namespace
}  // namespace gcu::model
