// The sequential design's stopping rule (convergence/pilot_sequential.h,
// sequential_runs_next_seed): a candidate runs its next seed while its prediction says
// "more_seeds", unless a `never` is repeated with one seed more (replicated). On
// constructed predictions, and on predictions from synthetic pilot records with one and
// two seeds of a diverging scheme. The design itself (which trains) is run by
// tests/cli/pilot_test.cpp (PilotCli.SequentialRunsOneSeedFirst).
#include "convergence/pilot_sequential.h"

#include "tests/convergence/pilot_records.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gcu::calibrate {
namespace {

using J = nlohmann::ordered_json;

J pred(const std::string& status, bool more_seeds) { return J{{"status", status}, {"more_seeds", more_seeds}}; }

TEST(PilotSequential, RepeatedNeverStopsOtherUndecidedGoOn) {
  const J never = pred("never", true), uncertain = pred("uncertain", true);
  // The first seed: nothing to compare with; "more_seeds" decides.
  EXPECT_TRUE(sequential_runs_next_seed(never, nullptr));
  EXPECT_TRUE(sequential_runs_next_seed(uncertain, nullptr));
  EXPECT_FALSE(sequential_runs_next_seed(pred("reaches", false), nullptr));
  EXPECT_FALSE(sequential_runs_next_seed(pred("uncertain", false), nullptr));  // a cap no seed lifts
  // A second seed that repeats `never`: replicated, no third.
  EXPECT_FALSE(sequential_runs_next_seed(never, &never));
  // A `never` that was not one before, or an `uncertain` (twice or after a `never`): the
  // next seed can still settle it.
  EXPECT_TRUE(sequential_runs_next_seed(never, &uncertain));
  EXPECT_TRUE(sequential_runs_next_seed(uncertain, &never));
  EXPECT_TRUE(sequential_runs_next_seed(uncertain, &uncertain));
  // Decided with the seeds so far: stops whatever came before.
  EXPECT_FALSE(sequential_runs_next_seed(pred("reaches", false), &never));
}

using pilot_fixture::add_runs;
using pilot_fixture::l0;

// The baseline with three seeds; a scheme that diverges on every seed is `never` with one
// seed and with two, each asking for more seeds (fewer than the baseline's): the second
// repeats the first, so the third is not run. A scheme on par reaches with one seed.
TEST(PilotSequential, DivergingSchemeStopsAfterTwoSeeds) {
  PilotPredictOptions o;
  o.target = l0(3000);
  o.baseline_iterations = 3000;
  std::vector<J> stage;  // the diverging scheme's prediction with 1, 2 seeds
  J par;
  for (int k = 1; k <= 2; ++k) {
    std::vector<nlohmann::json> r;
    add_runs(r, "none", 1.0, 3);
    add_runs(r, "ef(topk:k=0.01)", 1.0, k, true);
    add_runs(r, "qsgd", 1.5, k);
    const auto t = predict_from_pilots(r, o);
    stage.push_back(t["ef(topk:k=0.01)"]);
    if (k == 1) par = t["qsgd"];
  }
  ASSERT_EQ(stage[0]["status"], "never") << stage[0].dump();
  ASSERT_EQ(stage[1]["status"], "never") << stage[1].dump();
  EXPECT_TRUE(stage[1]["more_seeds"].get<bool>());  // predict alone would ask for the third
  EXPECT_TRUE(sequential_runs_next_seed(stage[0], nullptr));
  EXPECT_FALSE(sequential_runs_next_seed(stage[1], &stage[0]));
  EXPECT_EQ(par["status"], "reaches") << par.dump();
  EXPECT_FALSE(sequential_runs_next_seed(par, nullptr));
}

}  // namespace
}  // namespace gcu::calibrate
