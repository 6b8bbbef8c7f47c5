// The pace model (convergence/pace.h): its shift against hand computation, bad input, and
// through predict_from_pilots with --pace: the late pilots' errors move a biased scheme's
// estimate and its interval's ends, the status stays, unbiased and error-feedback schemes
// stay, and without --pace nothing of it happens.
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

TEST(Pace, AppliesToBiasedSchemesWithoutErrorFeedback) {
  EXPECT_TRUE(pace_applies(true, false));
  EXPECT_FALSE(pace_applies(false, false));
  EXPECT_FALSE(pace_applies(true, true));
  EXPECT_FALSE(pace_applies(false, true));
}

TEST(Pace, ShiftAgainstHandComputation) {
  // Pilot 0.04, probes 0.08 at 100 and 0.16 at 200, slope 12: d = 12 (0.12 - 0.04) = 0.96,
  // ends 12 (0.08 - 0.04) = 0.48 and 12 (0.16 - 0.04) = 1.44.
  const auto s = pace_shift(0.04, {100, 200}, {0.08, 0.16});
  ASSERT_TRUE(s);
  EXPECT_NEAR(s->shift, 0.96, 1e-12);
  EXPECT_NEAR(s->shift_lo, 0.48, 1e-12);
  EXPECT_NEAR(s->shift_hi, 1.44, 1e-12);
  EXPECT_NEAR(s->probe_error, 0.12, 1e-12);
  EXPECT_NEAR(pace_shift(0.04, {100, 200}, {0.08, 0.16}, 2.0)->shift, 0.16, 1e-12);
  // An error that falls after the pilot moves the multiplier down, never below min(rho, 1).
  const auto down = pace_shift(0.5, {50}, {0.2});
  ASSERT_TRUE(down);
  EXPECT_NEAR(down->shift, -3.6, 1e-12);
  EXPECT_NEAR(paced_multiplier(2.5, down->shift), 1.0, 1e-12);
  EXPECT_NEAR(paced_multiplier(0.8, down->shift), 0.8, 1e-12);
  EXPECT_NEAR(paced_multiplier(1.2, 0.96), 2.16, 1e-12);
  EXPECT_FALSE(pace_shift(0.1, {}, {}));
}

TEST(Pace, BadInputIsRefusedWithItsName) {
  EXPECT_THROW(pace_shift(-0.1, {10}, {0.1}), std::invalid_argument);
  EXPECT_THROW(pace_shift(NAN, {10}, {0.1}), std::invalid_argument);
  EXPECT_THROW(pace_shift(0.1, {10}, {0.1}, -1), std::invalid_argument);
  EXPECT_THROW(pace_shift(0.1, {10}, {0.1}, INFINITY), std::invalid_argument);
  EXPECT_THROW(pace_shift(0.1, {100, 100}, {0.1, 0.2}), std::invalid_argument);
  EXPECT_THROW(pace_shift(0.1, {0}, {0.1}), std::invalid_argument);
  EXPECT_THROW(pace_shift(0.1, {10}, {0.1, 0.2}), std::invalid_argument);
  try {
    pace_shift(0.1, {10, 20}, {0.1, INFINITY});
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

// The baseline and a biased scheme without error feedback (pilot error 0.2) with probes
// at 150 and 250 of the given errors; options with T_0 600 and a decided estimate to move.
std::vector<nlohmann::json> biased_with_probes(const std::string& spec, double e150, double e250) {
  std::vector<nlohmann::json> r;
  add_runs(r, "none", 1.0);
  add_runs(r, spec, 1.3);
  for (auto& x : r)
    if (x["type"] == "run" && x["scheme"] == spec) x["relative_error"] = 0.2;
  add_probe(r, spec, 150, e150);
  add_probe(r, spec, 250, e250);
  return r;
}
PilotPredictOptions options_t0_600() {
  PilotPredictOptions o;
  o.target = l0(600);
  o.baseline_iterations = 600;
  o.biased_rule = false;  // a decided estimate to move
  return o;
}

TEST(Pace, ThroughPredictFromPilots) {
  const std::string spec = "topk:k=0.01";  // biased, no error feedback
  std::vector<nlohmann::json> r = biased_with_probes(spec, 0.4, 0.6);
  PilotPredictOptions o = options_t0_600();
  const auto plain = predict_from_pilots(r, o)[spec];
  ASSERT_TRUE(plain["iterations"].is_number()) << plain.dump();
  EXPECT_FALSE(plain.contains("pace"));
  o.pace = true;
  o.pace_slope = 2;
  const auto paced = predict_from_pilots(r, o)[spec];
  // Slope 2: pilot 0.2, probes 0.4 and 0.6 (mean 0.5): d = 0.6, ends 0.4 and 0.8.
  ASSERT_TRUE(paced.contains("pace")) << paced.dump();
  EXPECT_NEAR(paced["pace"]["shift"].get<double>(), 0.6, 1e-12);
  EXPECT_EQ(paced["status"], plain["status"]);
  // The pilot's estimate without the late error ratio, moved by d T_0.
  PilotPredictOptions no_late = o;
  no_late.pace = false;
  no_late.late = false;
  const auto base = predict_from_pilots(r, no_late)[spec];
  EXPECT_NEAR(paced["iterations"].get<double>(), base["iterations"].get<double>() + 0.6 * 600, 1e-9);
  ASSERT_TRUE(base["interval"].is_array());
  EXPECT_NEAR(paced["interval"][0].get<double>(), base["interval"][0].get<double>() + 0.4 * 600, 1e-9);
  EXPECT_NEAR(paced["interval"][1].get<double>(), base["interval"][1].get<double>() + 0.8 * 600, 1e-9);
  EXPECT_NE(paced["evidence"].back().get<std::string>().find("pace: relative error 0.2 in the pilot"), std::string::npos)
      << paced["evidence"].dump();
  // An unbiased scheme or one with error feedback is left as the pilots predict it.
  std::vector<nlohmann::json> u;
  add_runs(u, "none", 1.0);
  add_runs(u, "qsgd", 1.3);
  add_runs(u, "ef(topk:k=0.01)", 1.3);
  add_probe(u, "qsgd", 150, 0.4);
  add_probe(u, "ef(topk:k=0.01)", 150, 0.4);
  const auto up = predict_from_pilots(u, o);
  EXPECT_FALSE(up["qsgd"].contains("pace"));
  EXPECT_FALSE(up["ef(topk:k=0.01)"].contains("pace"));
  // A branch point beyond T_0 says nothing of the way to the target: left out.
  std::vector<nlohmann::json> beyond = r;
  add_probe(beyond, spec, 700, 0.9);
  const auto b = predict_from_pilots(beyond, o)[spec];
  EXPECT_EQ(b["pace"]["branch_at"], paced["pace"]["branch_at"]);
  EXPECT_NEAR(b["pace"]["shift"].get<double>(), 0.6, 1e-12);
  // Probes 5 iterations long read the running error at N + 5: 0.2 and 0.3, mean 0.25.
  o.probe_iterations = 5;
  EXPECT_NEAR(predict_from_pilots(r, o)[spec]["pace"]["shift"].get<double>(), 2 * (0.25 - 0.2), 1e-12);
  o.probe_iterations = -1;
  EXPECT_THROW(predict_from_pilots(r, o), std::invalid_argument);
  o.probe_iterations = 0;
  o.pace_slope = NAN;
  EXPECT_THROW(predict_from_pilots(r, o), std::invalid_argument);
}

TEST(Pace, LevelFormThroughPredictFromPilots) {
  EXPECT_NEAR(level_multiplier(1.2, 0.1), 2.2, 1e-12);   // 1 + 12 x 0.1 above the pilots' 1.2
  EXPECT_NEAR(level_multiplier(3.0, 0.1), 3.0, 1e-12);   // the pilots' estimate where larger
  EXPECT_NEAR(level_multiplier(1.0, 0.2, 2.0), 1.4, 1e-12);
  EXPECT_THROW(level_multiplier(1.0, -0.1), std::invalid_argument);
  EXPECT_THROW(level_multiplier(1.0, 0.1, NAN), std::invalid_argument);
  const std::string spec = "topk:k=0.01";  // biased, no error feedback
  const std::vector<nlohmann::json> r = biased_with_probes(spec, 0.2, 0.3);
  PilotPredictOptions o = options_t0_600();
  o.late = true;
  o.pace = true;
  o.pace_form = PaceForm::Level;
  o.pace_slope = 10;
  const auto lv = predict_from_pilots(r, o)[spec];
  // Probes' mean error 0.25: the multiplier at least 1 + 10 x 0.25 = 3.5, the interval's
  // upper end at least 1 + 10 x 0.3 = 4, its lower end the pilots'.
  ASSERT_TRUE(lv.contains("pace")) << lv.dump();
  EXPECT_EQ(lv["pace"]["form"], "level");
  PilotPredictOptions no_late = o;
  no_late.pace = false;
  no_late.late = false;
  const auto base = predict_from_pilots(r, no_late)[spec];
  ASSERT_TRUE(base["iterations"].is_number() && base["interval"].is_array()) << base.dump();
  EXPECT_NEAR(lv["iterations"].get<double>(), std::max(base["iterations"].get<double>(), 3.5 * 600), 1e-9);
  EXPECT_NEAR(lv["interval"][0].get<double>(), base["interval"][0].get<double>(), 1e-9);
  EXPECT_NEAR(lv["interval"][1].get<double>(), std::max(base["interval"][1].get<double>(), 4.0 * 600), 1e-9);
  EXPECT_NE(lv["evidence"].back().get<std::string>().find("pace (level)"), std::string::npos) << lv["evidence"].dump();
  // An error at or above kPaceLevelMaxError (signSGD's ~0.9) does not move it.
  std::vector<nlohmann::json> hi;
  add_runs(hi, "none", 1.0);
  add_runs(hi, spec, 1.3);
  add_probe(hi, spec, 150, 0.9);
  const auto h = predict_from_pilots(hi, o)[spec];
  PilotPredictOptions unmoved = o;  // the change form with slope 0 moves nothing
  unmoved.pace_form = PaceForm::Change;
  unmoved.pace_slope = 0;
  EXPECT_EQ(h["iterations"], predict_from_pilots(hi, unmoved)[spec]["iterations"]);
}

}  // namespace
}  // namespace gcu::calibrate
