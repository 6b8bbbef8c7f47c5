// Predictions from pilot JSON lines (convergence/pilot_predict.h): synthetic records of a
// baseline and a scheme with a known multiplier, a diverged scheme, the profile entry,
// the sequential design's one-seed candidates, the stability rule, and the errors for a missing baseline or
// an unpaired seed.
#include "convergence/pilot_predict.h"

#include "tests/convergence/pilot_records.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

namespace gcu::calibrate {
namespace {

using pilot_fixture::add_runs;
using pilot_fixture::l0;

TEST(PilotPredict, RecoversTheMultiplierAndWritesTheProfileEntry) {
  std::vector<nlohmann::json> r;
  add_runs(r, "none", 1.0);
  add_runs(r, "ef(topk:k=0.01)", 1.5);
  add_runs(r, "signsgd", 1.0, 3, true);
  PilotPredictOptions o;
  o.target = l0(3000);
  o.baseline_iterations = 3000;
  const auto t = predict_from_pilots(r, o);
  ASSERT_TRUE(t.contains("ef(topk:k=0.01)"));
  const auto& k = t["ef(topk:k=0.01)"];
  EXPECT_EQ(k["status"], "reaches");
  EXPECT_NEAR(k["iterations"].get<double>(), 4500, 4500 * 0.06);
  EXPECT_EQ(t["signsgd"]["status"], "never");
  EXPECT_TRUE(t["signsgd"]["iterations"].is_null());
  const auto e = pilot_profile_entry(k);
  EXPECT_NEAR(e["multiplier"].get<double>(), 1.5, 0.09);
  EXPECT_LE(e["multiplier_lo"].get<double>(), e["multiplier"].get<double>());
  EXPECT_GE(e["multiplier_hi"].get<double>(), e["multiplier"].get<double>());
  // Truncation to a shorter pilot keeps working.
  o.pilot_iterations = 100;
  EXPECT_EQ(predict_from_pilots(r, o)["ef(topk:k=0.01)"]["pilot_iterations"], 100);
}

// Which schemes the biased-without-feedback rule and the extrapolation term exempt is a
// registry fact (fp16, bf16), not the measured relative error: PowerSGD's falls below 1%
// in some pilots (fortunes: 0.006 at iteration 40) and rises later in the run.
TEST(PilotPredict, ExemptionsAreRegistryFactsNotMeasuredErrors) {
  std::vector<nlohmann::json> r;
  add_runs(r, "none", 1.0);
  add_runs(r, "fp16", 1.1);
  add_runs(r, "powersgd:rank=4", 1.1);  // relative_error 0.0 in its records
  PilotPredictOptions o;
  o.target = l0(3000);
  o.baseline_iterations = 3000;
  const auto t = predict_from_pilots(r, o);
  EXPECT_EQ(t["fp16"]["status"], "reaches");
  EXPECT_EQ(t["powersgd:rank=4"]["status"], "uncertain");
  EXPECT_DOUBLE_EQ(t["powersgd:rank=4"]["relative_error"].get<double>(), 0.0);
  // The same curve, so the same point estimate; only PowerSGD's interval has the
  // extrapolation term, so it is the wider one.
  const auto width = [&](const char* s) {
    return t[s]["interval"][1].get<double>() / t[s]["interval"][0].get<double>();
  };
  EXPECT_NEAR(t["fp16"]["iterations"].get<double>(), t["powersgd:rank=4"]["iterations"].get<double>(), 1e-6);
  EXPECT_GT(width("powersgd:rank=4"), 1.2 * width("fp16"));
}

// A pilot cut from a longer run takes its relative error and noise scale at its own end
// from the eval records' running figures; the run record covers the whole run. Without
// running figures the output says the figures are the whole run's.
TEST(PilotPredict, TruncatedPilotUsesItsOwnRunningFigures) {
  std::vector<nlohmann::json> r;
  add_runs(r, "none", 1.0);
  add_runs(r, "qsgd", 1.2);
  for (auto& e : r)
    if (e["type"] == "eval" && e["scheme"] == "qsgd") {
      const int t = e["iteration"].get<int>();
      e["relative_error"] = 0.001 * t;  // grows along the run
      e["b_simple"] = t == 0 ? nlohmann::json(nullptr) : nlohmann::json(10.0 + t);
    } else if (e["type"] == "eval") {
      e["relative_error"] = 0.0, e["b_simple"] = 10.0 + e["iteration"].get<int>();
    }
  PilotPredictOptions o;
  o.target = l0(3000);
  o.baseline_iterations = 3000;
  auto t = predict_from_pilots(r, o);  // the whole run is the pilot: its run records
  EXPECT_EQ(t["qsgd"]["figures_over"], "pilot");
  EXPECT_DOUBLE_EQ(t["qsgd"]["relative_error"].get<double>(), 0.0);
  o.pilot_iterations = 100;
  t = predict_from_pilots(r, o);
  EXPECT_EQ(t["qsgd"]["figures_over"], "pilot");
  EXPECT_NEAR(t["qsgd"]["relative_error"].get<double>(), 0.1, 1e-12);  // at iteration 100
  // Records without running figures (older files): the run's, and the output says so.
  for (auto& e : r)
    if (e["type"] == "eval") e.erase("relative_error"), e.erase("b_simple");
  t = predict_from_pilots(r, o);
  EXPECT_EQ(t["qsgd"]["figures_over"], "whole run");
  EXPECT_DOUBLE_EQ(t["qsgd"]["relative_error"].get<double>(), 0.0);
}

// Late pilots (records after a config with branch_at): the scheme's relative error there
// against the pilot's rescales the multiplier's excess after the branch point closest to
// T_0 / 2 (below T_0); the interval scales with the estimate; off, or no branch below
// T_0, or the lag basis (the baseline): as without them.
// The baseline and `spec` at multiplier rho, its run records' relative error `err`.
std::vector<nlohmann::json> runs_with_error(const std::string& spec, double rho, double err) {
  std::vector<nlohmann::json> r;
  add_runs(r, "none", 1.0);
  add_runs(r, spec, rho);
  for (auto& e : r)
    if (e["type"] == "run" && e["scheme"] == spec) e["relative_error"] = err;
  return r;
}

PilotPredictOptions measured_t0(double t0) {
  PilotPredictOptions o;
  o.target = l0(t0);
  o.baseline_iterations = t0;
  return o;
}

TEST(PilotPredict, LatePilotsRescaleTheExcessAfterTheBranch) {
  std::vector<nlohmann::json> r = runs_with_error("ef(topk:k=0.01)", 1.5, 0.2);
  PilotPredictOptions o = measured_t0(3000);
  const auto before = predict_from_pilots(r, o)["ef(topk:k=0.01)"];
  ASSERT_EQ(before["basis"], "pilot-multiplier");
  const double rho = before["iterations"].get<double>() / 3000;
  const auto late_runs = [&](int branch_at, double err) {
    r.push_back({{"type", "config"}, {"branch_at", branch_at}});
    for (int seed = 1; seed <= 3; ++seed) {
      r.push_back({{"type", "eval"}, {"scheme", "ef(topk:k=0.01)"}, {"seed", seed}, {"iteration", branch_at + 10},
                   {"loss", 5.0}, {"accuracy", 0.1}, {"relative_error", err}});  // not a pilot point
      r.push_back({{"type", "run"}, {"scheme", "ef(topk:k=0.01)"}, {"seed", seed}, {"relative_error", err},
                   {"branch_at", branch_at}});
      r.push_back({{"type", "run"}, {"scheme", "none"}, {"seed", seed}, {"relative_error", 0.0}, {"branch_at", branch_at}});
    }
  };
  late_runs(3500, 0.9);  // beyond T_0: never used
  EXPECT_EQ(predict_from_pilots(r, o)["ef(topk:k=0.01)"], before);
  late_runs(1200, 0.6);  // x3 the pilot's error, 300 from T_0 / 2
  late_runs(400, 0.1);   // farther from T_0 / 2
  const auto t = predict_from_pilots(r, o);
  const auto& k = t["ef(topk:k=0.01)"];
  ASSERT_TRUE(k.contains("late")) << k.dump();
  EXPECT_EQ(k["late"]["branch_at"], 1200);
  EXPECT_NEAR(k["late"]["error_ratio"].get<double>(), 3.0, 1e-12);
  const double rho_late = 1 + (rho - 1) * 3;
  EXPECT_NEAR(k["late"]["multiplier_late"].get<double>(), rho_late, 1e-9);
  EXPECT_NEAR(k["iterations"].get<double>(), rho * 3000 + (rho_late - rho) * (3000 - 1200), 1e-6);
  const double f = k["iterations"].get<double>() / before["iterations"].get<double>();
  EXPECT_NEAR(k["interval"][0].get<double>(), before["interval"][0].get<double>() * f, 1e-6);
  EXPECT_NEAR(k["interval"][1].get<double>(), before["interval"][1].get<double>() * f, 1e-6);
  EXPECT_NE(k["evidence"].back().get<std::string>().find("late pilot"), std::string::npos);
  EXPECT_EQ(k["status"], before["status"]);
  EXPECT_EQ(k["late"]["rescaled"], true);
  EXPECT_FALSE(t["none"].contains("late"));  // no error
  o.late = false;
  EXPECT_EQ(predict_from_pilots(r, o)["ef(topk:k=0.01)"], before);
  // A branch point at or above T_0 is never used: with T_0 = 1000 only the one at 400.
  o.late = true;
  o.target = l0(1000);
  o.baseline_iterations = 1000;
  EXPECT_EQ(predict_from_pilots(r, o)["ef(topk:k=0.01)"]["late"]["branch_at"], 400);
  // An error ratio within late_min_ratio (default 1.5) of 1 is the seeds' noise: kept as
  // the pilot's; with 1, every ratio rescales.
  o.target = l0(3000);
  o.baseline_iterations = 3000;
  late_runs(1500, 0.24);  // x1.2, at T_0 / 2
  EXPECT_EQ(predict_from_pilots(r, o)["ef(topk:k=0.01)"], before);
  o.late_min_ratio = 1;
  EXPECT_NEAR(predict_from_pilots(r, o)["ef(topk:k=0.01)"]["late"]["error_ratio"].get<double>(), 1.2, 1e-12);
  // On par in the pilot (rho = 1: no excess) with an error that grew: a note, the
  // estimate as it was.
  std::vector<nlohmann::json> q = runs_with_error("powersgd:rank=4", 1.0, 0.01);
  const PilotPredictOptions po = measured_t0(3000);
  const auto par = predict_from_pilots(q, po)["powersgd:rank=4"];
  q.push_back({{"type", "config"}, {"branch_at", 1500}});
  q.push_back({{"type", "run"}, {"scheme", "powersgd:rank=4"}, {"seed", 1}, {"relative_error", 0.08}, {"branch_at", 1500}});
  const auto noted = predict_from_pilots(q, po)["powersgd:rank=4"];
  EXPECT_EQ(noted["iterations"], par["iterations"]);
  EXPECT_EQ(noted["interval"], par["interval"]);
  EXPECT_EQ(noted["status"], par["status"]);
  EXPECT_EQ(noted["late"]["rescaled"], false);
  EXPECT_NEAR(noted["late"]["error_ratio"].get<double>(), 8.0, 1e-9);
  EXPECT_NE(noted["evidence"].back().get<std::string>().find("no excess to rescale"), std::string::npos);
}

TEST(PilotPredict, MissingBaselineOrSeedIsAnError) {
  std::vector<nlohmann::json> r;
  add_runs(r, "qsgd", 1.2);
  PilotPredictOptions o;
  o.target = 0.5;
  EXPECT_THROW(predict_from_pilots(r, o), std::invalid_argument);
  add_runs(r, "none", 1.0);
  EXPECT_NO_THROW(predict_from_pilots(r, o));
  r.push_back({{"type", "eval"}, {"scheme", "qsgd"}, {"seed", 9}, {"iteration", 0}, {"loss", 1.0}, {"accuracy", 0.1}});
  try {
    predict_from_pilots(r, o);
    FAIL() << "a scheme's seed the baseline lacks was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("seed 9"), std::string::npos) << e.what();
  }
}

// The sequential design: a candidate piloted with fewer seeds than the baseline pairs
// with the baseline's runs of its own seeds, gets the one-seed term from the baseline's
// spread, and says whether more seeds could change its answer.
TEST(PilotPredict, CandidateWithOneSeedOfTheBaselines) {
  std::vector<nlohmann::json> r;
  add_runs(r, "none", 1.0);
  std::vector<nlohmann::json> one, all;
  add_runs(all, "qsgd", 1.5);
  add_runs(all, "ef(topk:k=0.01)", 1.0, 3, true);  // diverges: never
  add_runs(all, "signsgd", 1.0);                 // on par, but capped by the biased-scheme rule
  for (const auto& j : all)
    if (j["seed"] == 1) one.push_back(j);
  PilotPredictOptions o;
  o.target = l0(3000);
  o.baseline_iterations = 3000;
  auto with_one = r, with_all = r;
  with_one.insert(with_one.end(), one.begin(), one.end());
  with_all.insert(with_all.end(), all.begin(), all.end());
  const auto t1 = predict_from_pilots(with_one, o), t3 = predict_from_pilots(with_all, o);
  const auto& q1 = t1["qsgd"];
  const auto& q3 = t3["qsgd"];
  ASSERT_EQ(q1["seeds"], 1);
  ASSERT_EQ(q3["seeds"], 3);
  EXPECT_NEAR(q1["iterations"].get<double>(), 4500, 4500 * 0.06);
  EXPECT_GT(q1["seed_log_halfwidth"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(q3["seed_log_halfwidth"].get<double>(), 0);
  // A `never` from one seed asks for the others; with every seed there are none to ask for.
  EXPECT_EQ(t1["ef(topk:k=0.01)"]["status"], "never");
  EXPECT_TRUE(t1["ef(topk:k=0.01)"]["more_seeds"].get<bool>());
  EXPECT_FALSE(t3["ef(topk:k=0.01)"]["more_seeds"].get<bool>());
  EXPECT_FALSE(t1["none"]["more_seeds"].get<bool>());
  // The profile entry carries the seed counts (gcu simulate recommend's confirm note).
  const auto entry = pilot_profile_entry(q1);
  EXPECT_EQ(entry["seeds"], 1);
  EXPECT_EQ(entry["baseline_seeds"], 3);
  // No seed count makes a biased scheme without error feedback, whose pilot is above the
  // target, a confident `reaches`: its other seeds are not asked for.
  EXPECT_EQ(t1["signsgd"]["status"], "uncertain");
  EXPECT_FALSE(t1["signsgd"]["more_seeds"].get<bool>());
  // Without the term the one-seed interval is the narrower one.
  o.one_seed_term = false;
  const auto t0 = predict_from_pilots(with_one, o);
  const auto& q0 = t0["qsgd"];
  EXPECT_DOUBLE_EQ(q0["seed_log_halfwidth"].get<double>(), 0);
  EXPECT_LT(q0["interval"][1].get<double>() / q0["interval"][0].get<double>(),
            q1["interval"][1].get<double>() / q1["interval"][0].get<double>());
}

// The stability rule (PilotPredictOptions::stable_looks): a scheme whose loss jumps back
// up at its pilot's last evaluation only is `never` from that evaluation alone, and
// `reaches` from the pilot one evaluation shorter; over three looks it is `uncertain`,
// with the evidence, and asks for more seeds. A decision every look shares is kept.
TEST(PilotPredict, DecisionMustHoldOverTheLastPilotLengths) {
  std::vector<nlohmann::json> r;
  add_runs(r, "none", 1.0);
  add_runs(r, "qsgd", 1.2, 1);
  add_runs(r, "ef(topk:k=0.01)", 1.5);
  for (auto& j : r)  // qsgd's last evaluation (iteration 300) back at the start's loss
    if (j["scheme"] == "qsgd" && j["type"] == "eval" && j["iteration"] == 300) j["loss"] = l0(0);
  PilotPredictOptions o;
  o.target = l0(3000);
  o.baseline_iterations = 3000;
  o.stable_looks = 1;
  const auto once = predict_from_pilots(r, o);
  EXPECT_EQ(once["qsgd"]["status"], "never");
  o.pilot_iterations = 290;  // the pilot one evaluation shorter
  EXPECT_EQ(predict_from_pilots(r, o)["qsgd"]["status"], "reaches");
  o.pilot_iterations = 0;
  o.stable_looks = 3;
  const auto t = predict_from_pilots(r, o);
  const auto& q = t["qsgd"];
  EXPECT_EQ(q["status"], "uncertain");
  EXPECT_TRUE(q["more_seeds"].get<bool>());
  bool named = false;
  for (const auto& e : q["evidence"])
    named = named || e.get<std::string>().find("unstable: `never` at the pilot's end (iteration 300), `reaches` "
                                               "with the pilot ending at iteration 290") != std::string::npos;
  EXPECT_TRUE(named) << q["evidence"].dump();
  // Stable decisions are untouched, and the default is the three looks.
  EXPECT_EQ(t["ef(topk:k=0.01)"]["status"], "reaches");
  EXPECT_EQ(t["ef(topk:k=0.01)"]["iterations"], once["ef(topk:k=0.01)"]["iterations"]);
  EXPECT_EQ(PilotPredictOptions{}.stable_looks, 3);
}

// Found by fuzz_pilot_records: an eval record with a running relative error but no
// b_simple read a missing key of a const object (undefined behaviour; an assertion in a
// debug build). Optional figures are now NaN unless finite numbers; `workers` is a count
// like seed and iteration.
TEST(PilotPredict, RecordsFiguresAreOptionalAndFinite) {
  std::vector<nlohmann::json> r;
  add_runs(r, "none", 1.0);
  add_runs(r, "qsgd", 1.2);
  PilotPredictOptions o;
  o.target = l0(3000);
  o.baseline_iterations = 3000;
  o.pilot_iterations = 200;
  auto a = r;
  for (auto& x : a)
    if (x["type"] == "eval" && x["scheme"] == "qsgd") x["relative_error"] = 0.3;  // no b_simple
  a.push_back({{"type", "run"}, {"scheme", "qsgd"}, {"seed", 1}, {"b_simple", std::numeric_limits<double>::infinity()},
               {"relative_error", nullptr}, {"global_batch", "64"}});
  const auto t = predict_from_pilots(a, o);
  EXPECT_EQ(t["qsgd"]["status"], "reaches") << t["qsgd"].dump();
  EXPECT_DOUBLE_EQ(t["qsgd"]["relative_error"].get<double>(), 0.3);
  EXPECT_TRUE(std::isfinite(t["qsgd"]["iterations"].get<double>()));
  auto b = r;
  b.push_back({{"type", "run"}, {"scheme", "qsgd"}, {"seed", 1}, {"workers", 1e300}});
  try {
    predict_from_pilots(b, o);
    FAIL() << "workers = 1e300 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'workers'"), std::string::npos) << e.what();
  }
}

// Options no prediction can be made with are refused by name before any work (the CLI
// checks them too; the sequential design and other callers of the library rely on this).
TEST(PilotPredict, ImpossibleOptionsAreRefusedByName) {
  std::vector<nlohmann::json> r;
  add_runs(r, "none", 1.0);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const auto refused = [&](const char* name, const std::function<void(PilotPredictOptions&)>& set) {
    PilotPredictOptions o;
    o.target = l0(3000);
    set(o);
    try {
      predict_from_pilots(r, o);
      ADD_FAILURE() << name << ": accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  };
  refused("target", [&](auto& o) { o.target = nan; });
  refused("target", [&](auto& o) { o.target = inf; });
  refused("metric", [](auto& o) { o.metric = "perplexity"; });
  refused("--pilot-iterations", [](auto& o) { o.pilot_iterations = -1; });
  refused("baseline's iterations", [&](auto& o) { o.baseline_iterations = inf; });
  refused("baseline's iterations", [](auto& o) { o.baseline_iterations = -5; });
  refused("--bootstrap", [](auto& o) { o.bootstrap = 0; });
  refused("--max-multiplier", [](auto& o) { o.max_multiplier = 1; });
  refused("--max-multiplier", [&](auto& o) { o.max_multiplier = nan; });
  refused("--extrapolation-sigma", [&](auto& o) { o.extrapolation_sigma_hi = inf; });
  refused("--stable-looks", [](auto& o) { o.stable_looks = 0; });
  refused("--late-min-ratio", [](auto& o) { o.late_min_ratio = 0.5; });
  // Found by fuzz_pilot_records: a target the baseline meets at its first evaluation
  // gave T_0 = 0, every candidate `never` with "multiplier inf above the cap".
  refused("already meets the target", [](auto& o) { o.target = l0(0) + 0.1; });
  PilotPredictOptions ok;
  ok.target = l0(3000);
  EXPECT_NO_THROW(predict_from_pilots(r, ok));
}

}  // namespace
}  // namespace gcu::calibrate
