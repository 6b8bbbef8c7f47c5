// Late pilots' stall test (convergence/pilot_late.h): the scheme's gap to the baseline after
// the branch point against the baseline's pace to the target, on constructed curves with a
// known gap slope; and through predict_from_pilots, a `reaches` that a stalled late pilot
// turns `never`.
#include "convergence/pilot_late.h"
#include "convergence/pilot_predict.h"
#include "pilot_records.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gcu::calibrate {
namespace {

using pilot_fixture::add_runs;
using pilot_fixture::l0;

constexpr int kBranch = 1500;
constexpr double kT0 = 3000;
// The baseline's mean pace from the branch point to the target l0(T_0).
const double kPace = (l0(kBranch) - l0(kT0)) / (kT0 - kBranch);

// Late pilots of `spec` from kBranch for 40 iterations: the baseline follows l0, the scheme
// l0 plus a gap growing by slope_by_seed[seed - 1] per iteration (after a start-up jump of
// 0.05 in the first quarter, which the test leaves out) and a small ripple.
std::vector<nlohmann::json> late_records(const std::string& spec, const std::vector<double>& slope_by_seed) {
  std::vector<nlohmann::json> r{{{"type", "config"}, {"branch_at", kBranch}}};
  for (int seed = 1; seed <= int(slope_by_seed.size()); ++seed)
    for (int t = kBranch; t <= kBranch + 40; ++t) {
      const double ripple = 1e-5 * std::sin(0.7 * t + seed);
      r.push_back({{"type", "eval"}, {"scheme", "none"}, {"seed", seed}, {"iteration", t}, {"loss", l0(t)},
                   {"accuracy", 0.5}});
      const double jump = t > kBranch && t <= kBranch + 10 ? 0.05 : 0.0;
      r.push_back({{"type", "eval"}, {"scheme", spec}, {"seed", seed}, {"iteration", t},
                   {"loss", l0(t) + jump + slope_by_seed[seed - 1] * (t - kBranch) + ripple}, {"accuracy", 0.5}});
    }
  return r;
}

LateBranches branches_of(const std::vector<nlohmann::json>& recs, const std::string& spec) {
  LateBranches b;
  for (const auto& r : recs)
    if (r["type"] == "eval" && r["scheme"] == spec)
      b[kBranch].evals[r["seed"].get<uint64_t>()][r["iteration"].get<int>()] = r["loss"].get<double>();
  return b;
}

TEST(PilotLate, GapSlopeAgainstTheBaselinesPace) {
  const auto recs = late_records("signsgd", {10 * kPace, 12 * kPace, 8 * kPace});
  const LateBranches s = branches_of(recs, "signsgd"), b = branches_of(recs, "none");
  const auto g = late_gap(s.at(kBranch), b.at(kBranch), kBranch, kT0, l0(kT0));
  ASSERT_TRUE(g);
  EXPECT_NEAR(g->pace, kPace, 1e-12);
  EXPECT_NEAR(g->slope, 10 * kPace, 0.05 * kPace);  // the start-up jump left out
  EXPECT_NEAR(g->se, 2 * kPace / std::sqrt(3.0), 0.05 * kPace);
  EXPECT_EQ(g->seeds, 3u);
  EXPECT_NEAR(g->t, 1.886, 1e-9);
  EXPECT_TRUE(g->stalled());
  // A gap growing slower than the baseline gains: not stalled (it still progresses).
  const auto slow = late_records("signsgd", {0.5 * kPace, 0.6 * kPace, 0.4 * kPace});
  const auto gs = late_gap(branches_of(slow, "signsgd").at(kBranch), branches_of(slow, "none").at(kBranch), kBranch,
                           kT0, l0(kT0));
  ASSERT_TRUE(gs);
  EXPECT_FALSE(gs->stalled());
  // Faster than the pace on average but the seeds disagree: within the noise, not stalled.
  const auto noisy = late_records("signsgd", {0.2 * kPace, 4 * kPace});
  const auto gn = late_gap(branches_of(noisy, "signsgd").at(kBranch), branches_of(noisy, "none").at(kBranch), kBranch,
                           kT0, l0(kT0));
  ASSERT_TRUE(gn);
  EXPECT_GT(gn->slope, kPace);
  EXPECT_FALSE(gn->stalled());
}

TEST(PilotLate, NoTestWithoutTwoSeedsOrBeyondTheTarget) {
  const auto one = late_records("signsgd", {10 * kPace});
  const auto g1 = late_gap(branches_of(one, "signsgd").at(kBranch), branches_of(one, "none").at(kBranch), kBranch, kT0,
                           l0(kT0));
  ASSERT_TRUE(g1);
  EXPECT_EQ(g1->seeds, 1u);
  EXPECT_TRUE(g1->outpaces());
  EXPECT_FALSE(g1->stalled());  // one seed: no test
  const auto recs = late_records("signsgd", {10 * kPace, 10 * kPace});
  const LateBranches sb = branches_of(recs, "signsgd"), bb = branches_of(recs, "none");
  const LateBranch& s = sb.at(kBranch);
  const LateBranch& b = bb.at(kBranch);
  EXPECT_FALSE(late_gap(s, b, kBranch, kT0, l0(kBranch) + 0.01));  // the baseline is past the target at N
  EXPECT_FALSE(late_gap(s, b, kBranch, kBranch, l0(kT0)));         // N >= T_0
  EXPECT_FALSE(late_gap(s, LateBranch{}, kBranch, kT0, l0(kT0)));  // no baseline eval at N
}

// Through predict_from_pilots: ef(topk) at rho 1.2 `reaches` from its pilots; late pilots
// whose gap grows 10x the baseline's pace make it `never` with the evidence; off, or
// without the baseline's late pilots, the estimate stays.
TEST(PilotLate, AStalledLatePilotMakesAReachNever) {
  std::vector<nlohmann::json> r;
  add_runs(r, "none", 1.0);
  add_runs(r, "ef(topk:k=0.01)", 1.2);
  PilotPredictOptions o;
  o.target = l0(kT0);
  o.baseline_iterations = kT0;
  const auto before = predict_from_pilots(r, o)["ef(topk:k=0.01)"];
  ASSERT_EQ(before["status"], "reaches") << before.dump();
  const auto late = late_records("ef(topk:k=0.01)", {10 * kPace, 12 * kPace, 8 * kPace});
  std::vector<nlohmann::json> with = r;
  with.insert(with.end(), late.begin(), late.end());
  const auto k = predict_from_pilots(with, o)["ef(topk:k=0.01)"];
  EXPECT_EQ(k["status"], "never") << k.dump();
  EXPECT_TRUE(k["iterations"].is_null());
  EXPECT_TRUE(k["interval"].is_null());
  EXPECT_EQ(k["late"]["stalled"], true);
  EXPECT_EQ(k["late"]["branch_at"], kBranch);
  EXPECT_NE(k["evidence"].back().get<std::string>().find("no progress toward the target after iteration 1500"),
            std::string::npos);
  o.late_stall = false;
  EXPECT_EQ(predict_from_pilots(with, o)["ef(topk:k=0.01)"], before);
  o.late_stall = true;
  std::vector<nlohmann::json> no_base = r;
  for (const auto& x : late)
    if (x.value("scheme", "") != "none") no_base.push_back(x);
  EXPECT_EQ(predict_from_pilots(no_base, o)["ef(topk:k=0.01)"], before);
  // A late pilot that keeps pace is no reason: as before.
  const auto keeps = late_records("ef(topk:k=0.01)", {0.1 * kPace, 0.2 * kPace, 0.0});
  std::vector<nlohmann::json> ok = r;
  ok.insert(ok.end(), keeps.begin(), keeps.end());
  EXPECT_EQ(predict_from_pilots(ok, o)["ef(topk:k=0.01)"], before);
  // The sequential design: the candidate piloted (and late-piloted) with one seed of the
  // baseline's three; a gap that outpaces the baseline asks for the next seed, the
  // estimate as it was.
  std::vector<nlohmann::json> seq;
  add_runs(seq, "none", 1.0);
  add_runs(seq, "ef(topk:k=0.01)", 1.2, 1);
  const auto one_before = predict_from_pilots(seq, o)["ef(topk:k=0.01)"];
  ASSERT_EQ(one_before["more_seeds"], false) << one_before.dump();
  const auto one_late = late_records("ef(topk:k=0.01)", {10 * kPace});
  seq.insert(seq.end(), one_late.begin(), one_late.end());
  const auto one = predict_from_pilots(seq, o)["ef(topk:k=0.01)"];
  EXPECT_EQ(one["more_seeds"], true);
  EXPECT_EQ(one["status"], one_before["status"]);
  EXPECT_EQ(one["iterations"], one_before["iterations"]);
  EXPECT_NE(one["evidence"].back().get<std::string>().find("more seeds decide"), std::string::npos);
}

}  // namespace
}  // namespace gcu::calibrate
