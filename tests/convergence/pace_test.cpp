// The pace model (convergence/pace.h): its forms and factor against hand computation, bad
// input, and through predict_from_pilots with --pace: the late pilots' errors scale the
// estimate and widen its interval, the status stays, and without --pace nothing of it
// happens.
#include "convergence/pace.h"
#include "convergence/pilot_predict.h"
#include "pilot_records.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace gcu::calibrate {
namespace {

using pilot_fixture::add_runs;
using pilot_fixture::l0;

TEST(Pace, FormsFollowTheTraits) {
  EXPECT_EQ(pace_form(true, false), PaceForm::Biased);
  EXPECT_EQ(pace_form(false, false), PaceForm::Unbiased);
  EXPECT_EQ(pace_form(true, true), PaceForm::None);
  EXPECT_EQ(pace_form(false, true), PaceForm::None);
  // By hand: 1 + 0.2/0.8 = 1.25; 0.99 is taken as 0.95: 1 + 0.95/0.05 = 20; 1 + 0.5/2 = 1.25.
  EXPECT_NEAR(pace_multiplier(PaceForm::Biased, 0.2, 2), 1.25, 1e-12);
  EXPECT_NEAR(pace_multiplier(PaceForm::Biased, 0.99, 2), 20.0, 1e-9);
  EXPECT_NEAR(pace_multiplier(PaceForm::Unbiased, 0.5, 2), 1.25, 1e-12);
  EXPECT_NEAR(pace_multiplier(PaceForm::Unbiased, 4.0, 4), 2.0, 1e-12);
  EXPECT_EQ(pace_multiplier(PaceForm::None, 0.9, 2), 1.0);
}

TEST(Pace, FactorAgainstHandComputation) {
  // Pilot 0.04, probes 0.08 at 100 and 0.16 at 200 (biased): m = 1/(1-e).
  // factor = (1/0.88) / (1/0.96) = 1.0909...; per branch 0.96/0.92 = 1.0435, 0.96/0.84 = 1.1429.
  const auto f = pace_factor(PaceForm::Biased, 0.04, {100, 200}, {0.08, 0.16}, 2);
  ASSERT_TRUE(f);
  EXPECT_NEAR(f->factor, 0.96 / 0.88, 1e-12);
  EXPECT_NEAR(f->factor_lo, 1.0, 1e-12);  // every branch above the pilot: the low end stays
  EXPECT_NEAR(f->factor_hi, 0.96 / 0.84, 1e-12);
  EXPECT_NEAR(f->probe_error, 0.12, 1e-12);
  // An error that falls after the pilot speeds the estimate up, and the low end follows.
  const auto down = pace_factor(PaceForm::Biased, 0.5, {50}, {0.2}, 2);
  ASSERT_TRUE(down);
  EXPECT_NEAR(down->factor, (1 / 0.8) / 2.0, 1e-12);
  EXPECT_NEAR(down->factor_lo, down->factor, 1e-12);
  EXPECT_NEAR(down->factor_hi, 1.0, 1e-12);
  // Error feedback: 1 whatever the errors.
  const auto ef = pace_factor(PaceForm::None, 0.1, {50, 80}, {0.9, 0.95}, 2);
  ASSERT_TRUE(ef);
  EXPECT_EQ(ef->factor, 1.0);
  EXPECT_FALSE(pace_factor(PaceForm::Biased, 0.1, {}, {}, 2));
}

TEST(Pace, BadInputIsRefusedWithItsName) {
  EXPECT_THROW(pace_multiplier(PaceForm::Biased, -0.1, 2), std::invalid_argument);
  EXPECT_THROW(pace_multiplier(PaceForm::Biased, NAN, 2), std::invalid_argument);
  EXPECT_THROW(pace_multiplier(PaceForm::Unbiased, 0.1, 0), std::invalid_argument);
  EXPECT_THROW(pace_factor(PaceForm::Biased, 0.1, {100, 100}, {0.1, 0.2}, 2), std::invalid_argument);
  EXPECT_THROW(pace_factor(PaceForm::Biased, 0.1, {0}, {0.1}, 2), std::invalid_argument);
  EXPECT_THROW(pace_factor(PaceForm::Biased, 0.1, {10}, {0.1, 0.2}, 2), std::invalid_argument);
  try {
    pace_factor(PaceForm::Biased, 0.1, {10, 20}, {0.1, INFINITY}, 2);
    FAIL() << "an infinite probe error was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("relative error"), std::string::npos) << e.what();
  }
}

// Late-pilot records (config with branch_at, then each seed's run record) of `spec` with
// relative error `e` over the branch; its eval records' running error is e / 2 over the
// first 5 iterations, e from then on.
void add_probe(std::vector<nlohmann::json>& r, const std::string& spec, int at, double e) {
  r.push_back({{"type", "config"}, {"branch_at", at}});
  for (int seed = 1; seed <= 3; ++seed) {
    for (int t = at + 1; t <= at + 20; ++t)
      r.push_back({{"type", "eval"}, {"scheme", spec}, {"seed", seed}, {"iteration", t}, {"loss", l0(t)},
                   {"accuracy", 0.5}, {"relative_error", t <= at + 5 ? e / 2 : e}});
    r.push_back({{"type", "run"}, {"scheme", spec}, {"seed", seed}, {"relative_error", e}, {"workers", 2}});
  }
}

TEST(Pace, ThroughPredictFromPilots) {
  const std::string spec = "topk:k=0.01";  // biased, no error feedback
  std::vector<nlohmann::json> r;
  add_runs(r, "none", 1.0);
  add_runs(r, spec, 1.3);
  for (auto& x : r)
    if (x["type"] == "run" && x["scheme"] == spec) x["relative_error"] = 0.2;
  add_probe(r, spec, 150, 0.4);
  add_probe(r, spec, 250, 0.6);
  PilotPredictOptions o;
  o.target = l0(600);
  o.baseline_iterations = 600;
  o.biased_rule = false;  // a decided estimate to scale
  const auto plain = predict_from_pilots(r, o)[spec];
  ASSERT_TRUE(plain["iterations"].is_number()) << plain.dump();
  EXPECT_FALSE(plain.contains("pace"));
  o.pace = true;
  const auto paced = predict_from_pilots(r, o)[spec];
  // m: 1/(1-e). Pilot 0.2 -> 1.25; mean probe 0.5 -> 2; per branch 0.4 -> 1.667, 0.6 -> 2.5.
  const double factor = 2.0 / 1.25, lo = 1.0, hi = 2.5 / 1.25;
  ASSERT_TRUE(paced.contains("pace")) << paced.dump();
  EXPECT_NEAR(paced["pace"]["factor"].get<double>(), factor, 1e-12);
  EXPECT_EQ(paced["status"], plain["status"]);
  // The pilot's estimate without the late error ratio, times the factor.
  PilotPredictOptions no_late = o;
  no_late.pace = false;
  no_late.late = false;
  const auto base = predict_from_pilots(r, no_late)[spec];
  EXPECT_NEAR(paced["iterations"].get<double>(), base["iterations"].get<double>() * factor, 1e-9);
  ASSERT_TRUE(base["interval"].is_array());
  EXPECT_NEAR(paced["interval"][0].get<double>(), base["interval"][0].get<double>() * lo, 1e-9);
  EXPECT_NEAR(paced["interval"][1].get<double>(), base["interval"][1].get<double>() * hi, 1e-9);
  EXPECT_NE(paced["evidence"].back().get<std::string>().find("pace: relative error 0.2 in the pilot"), std::string::npos)
      << paced["evidence"].dump();
  // The baseline: no error, factor 1.
  EXPECT_FALSE(predict_from_pilots(r, o)["none"].contains("pace"));
  // A branch point beyond T_0 says nothing of the way to the target: left out.
  std::vector<nlohmann::json> beyond = r;
  add_probe(beyond, spec, 700, 0.9);
  EXPECT_EQ(predict_from_pilots(beyond, o)[spec]["pace"]["branch_at"], paced["pace"]["branch_at"]);
  EXPECT_NEAR(predict_from_pilots(beyond, o)[spec]["pace"]["factor"].get<double>(), factor, 1e-12);
  // Probes 5 iterations long read the running error at N + 5: 0.2 and 0.3, mean 0.25.
  o.probe_iterations = 5;
  const auto short_probe = predict_from_pilots(r, o)[spec];
  EXPECT_NEAR(short_probe["pace"]["factor"].get<double>(), (1 / 0.75) / 1.25, 1e-12);
  o.probe_iterations = -1;
  EXPECT_THROW(predict_from_pilots(r, o), std::invalid_argument);
}

}  // namespace
}  // namespace gcu::calibrate
