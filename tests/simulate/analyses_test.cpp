// simulate/analyses: the what-if reports print a table naming every scheme asked for.
#include "simulate/analyses.h"

#include "model/profile_json.h"
#include "test_profile.h"

#include <gtest/gtest.h>

namespace gcu::simulate {
namespace {

model::Profile tiny() { return model::profile_from_json(test::tiny_profile_json()); }

TEST(Analyses, Crossover) {
  const std::string s = crossover_report(tiny(), {{}, {}, "tiny.json"}, {"topk:k=0.1"}, "none", 0.1, 100,
                                         model::Metric::Iteration);
  EXPECT_NE(s.find("crossover (Gbps)"), std::string::npos) << s;
  EXPECT_NE(s.find("topk:k=0.1"), std::string::npos) << s;
  EXPECT_NE(s.find("iteration time"), std::string::npos) << s;
}

TEST(Analyses, Ratio) {
  const std::string s = ratio_report(tiny(), {{}, {}, "tiny.json"}, {"none", "fp16"}, 0.1);
  EXPECT_NE(s.find("ratio needed"), std::string::npos) << s;
  EXPECT_NE(s.find("10%"), std::string::npos) << s;
}

TEST(Analyses, Trade) {
  const std::string s = trade_report(tiny(), {{}, {}, "tiny.json"}, "topk:k=0.1", {1, 2, 4}, 1);
  EXPECT_NE(s.find("codec speed-up k"), std::string::npos) << s;
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n') >= 5, true) << s;
}

TEST(Analyses, RecommendRanksAndListsSkipped) {
  const std::string s = recommend_report(tiny(), {{}, {}, "tiny.json"}, {"none", "fp16", "topk:k=0.1", "signsgd"},
                                         model::Metric::Iteration, 0);
  EXPECT_NE(s.find("rank"), std::string::npos) << s;
  EXPECT_NE(s.find("best: "), std::string::npos) << s;
  EXPECT_NE(s.find("skipped signsgd"), std::string::npos) << s;  // no cost fit in the tiny profile
}

}  // namespace
}  // namespace gcu::simulate
