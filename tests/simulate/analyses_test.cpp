// simulate/analyses: the what-if reports print a table naming every scheme asked for.
#include "simulate/analyses.h"

#include "model/profile_json.h"
#include "test_profile.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace gcu::simulate {
namespace {

using test::tiny_profile;

TEST(Analyses, Crossover) {
  const std::string s = crossover_text(run_crossover(tiny_profile(), {{}, {}, "tiny.json"}, {"topk:k=0.1"}, "none", 0.1, 100,
                                                      model::Metric::Iteration));
  EXPECT_NE(s.find("crossover (Gbps)"), std::string::npos) << s;
  EXPECT_NE(s.find("topk:k=0.1"), std::string::npos) << s;
  EXPECT_NE(s.find("iteration time"), std::string::npos) << s;
}

TEST(Analyses, Ratio) {
  const std::string s = ratio_text(run_ratio(tiny_profile(), {{}, {}, "tiny.json"}, {"none", "fp16"}, 0.1));
  EXPECT_NE(s.find("ratio needed"), std::string::npos) << s;
  EXPECT_NE(s.find("10%"), std::string::npos) << s;
}

TEST(Analyses, Trade) {
  const std::string s = trade_text(run_trade(tiny_profile(), {{}, {}, "tiny.json"}, "topk:k=0.1", {1, 2, 4}, 1));
  EXPECT_NE(s.find("codec speed-up k"), std::string::npos) << s;
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n') >= 5, true) << s;
}

TEST(Analyses, RecommendRanksAndListsSkipped) {
  const std::string s = recommend_text(run_recommend(tiny_profile(), {{}, {}, "tiny.json"}, {"none", "fp16", "topk:k=0.1", "signsgd"},
                                                        model::Metric::Iteration, 0));
  EXPECT_NE(s.find("rank"), std::string::npos) << s;
  EXPECT_NE(s.find("best: "), std::string::npos) << s;
  EXPECT_NE(s.find("skipped signsgd"), std::string::npos) << s;  // no cost fit in the tiny profile
}

TEST(Analyses, RecommendResultRanksAllAndTopOnlyTrimsTheReport) {
  const auto r = run_recommend(tiny_profile(), {{}, {}, "tiny.json"}, {"none", "fp16", "topk:k=0.1"}, model::Metric::Iteration, 1);
  ASSERT_EQ(r.rows.size(), 3u);
  for (size_t i = 0; i < r.rows.size(); ++i) EXPECT_EQ(r.rows[i].rank, int(i) + 1);
  for (size_t i = 1; i < r.rows.size(); ++i)
    EXPECT_LE(r.rows[i - 1].rec.iteration->total_s, r.rows[i].rec.iteration->total_s);
  EXPECT_EQ(r.best, r.rows[0].rec.scheme);
  for (const auto& x : r.rows)  // vs FP16 = T_fp16 / T_scheme
    if (x.rec.scheme == "fp16") EXPECT_DOUBLE_EQ(*x.vs_fp16, 1.0);
  const std::string text = recommend_text(r);
  EXPECT_EQ(text.find(r.rows[1].rec.scheme + " "), std::string::npos) << text;  // only the top 1 printed
}

// The sequential pilot design's best made from fewer seeds than the baseline's: recommend
// asks to confirm it (text and JSON), and not when the pilot had every seed.
TEST(Analyses, RecommendAsksToConfirmABestPilotedWithFewerSeeds) {
  auto j = test::tiny_profile_json();
  j["convergence"]["schemes"]["topk:k=0.1"] = {
      {"pilot", {{"status", "reaches"}, {"multiplier", 0.2}, {"seeds", 1}, {"baseline_seeds", 3}}}};
  const auto r = run_recommend(model::profile_from_json(j), {{}, {}, "tiny.json"}, {"none", "fp16", "topk:k=0.1"},
                               model::Metric::Tta, 0);
  ASSERT_EQ(r.best, "topk:k=0.1");
  EXPECT_NE(r.confirm_note.find("piloted with 1 of the baseline's 3 seeds"), std::string::npos) << r.confirm_note;
  EXPECT_NE(recommend_text(r).find(r.confirm_note), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(recommend_json(r))["confirm_best"], r.confirm_note);
  j["convergence"]["schemes"]["topk:k=0.1"]["pilot"]["seeds"] = 3;
  const auto all = run_recommend(model::profile_from_json(j), {{}, {}, "tiny.json"}, {"none", "fp16", "topk:k=0.1"},
                                 model::Metric::Tta, 0);
  EXPECT_EQ(all.best, "topk:k=0.1");
  EXPECT_TRUE(all.confirm_note.empty()) << all.confirm_note;
}

TEST(Analyses, ContextFollowsTheSetup) {
  AnalysisBase a{{}, {}, "tiny.json"};
  a.setup.nodes = 1;
  a.setup.gpus_per_node = 2;
  a.cond.inter_bandwidth_gbps = 25;
  const auto r = run_ratio(tiny_profile(), a, {"none"}, 0.2);
  EXPECT_EQ(r.context.nodes, 1);
  EXPECT_EQ(r.context.gpus_per_node, 2);
  EXPECT_EQ(r.context.batch_size, 32);
  EXPECT_DOUBLE_EQ(r.context.inter_bandwidth_gbps, 25);
  EXPECT_EQ(r.context.analysis, "ratio");
  EXPECT_NE(ratio_text(r).find("2 GPUs (1 x 2)"), std::string::npos) << ratio_text(r);
}

}  // namespace
}  // namespace gcu::simulate
