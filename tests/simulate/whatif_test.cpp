// What-if analyses (simulate/whatif.h): sweeps, ratio for linear scaling, codec trade,
// crossover consistent with direct evaluation, recommendation order.
#include "simulate/whatif.h"

#include "tests/model/fixtures.h"

#include "compressors/registry.h"

#include <gtest/gtest.h>

#include <tuple>

namespace gcu::model {
namespace {

using testing::scheme_registered;

// 2 nodes x 4 GPUs, 4 buckets of 32e6 B; fp16 with a large codec cost (2 ms per bucket).
Profile profile() {
  Profile p = testing::tiny_profile(4, 8000000, 2, 4);
  p.compressors["fp16"] = {{1e-3, 0}, {1e-3, 0, 0}, 0};
  return p;
}

TEST(WhatIf, BandwidthSweepRows) {
  SweepRequest r;
  r.axis = Axis::Bandwidth;
  r.values = {1, 10, 40};
  r.schemes = {"none"};
  if (scheme_registered("fp16")) r.schemes.push_back("fp16");
  auto rows = sweep(profile(), r);
  ASSERT_EQ(rows.size(), r.values.size() * r.schemes.size());
  EXPECT_EQ(rows[0].x, 1);
  EXPECT_EQ(rows[0].scheme, "none");
  EXPECT_DOUBLE_EQ(rows[0].speedup_vs_none, 1.0);
  for (const auto& row : rows) {
    EXPECT_GE(row.iteration.total_s, row.linear_s);
    EXPECT_TRUE(row.tta.has_value()) << row.tta_note;
  }
  EXPECT_LT(rows.back().iteration.total_s, rows.front().iteration.total_s);
}

TEST(WhatIf, NodesAndBatchSweeps) {
  SweepRequest r;
  r.axis = Axis::Nodes;
  r.values = {1, 2, 8};
  r.schemes = {"none"};
  auto rows = sweep(profile(), r);
  EXPECT_EQ(rows[0].iteration.world, 4);
  EXPECT_EQ(rows[2].iteration.world, 32);
  r.axis = Axis::BatchSize;
  r.values = {32, 64};
  rows = sweep(profile(), r);
  EXPECT_TRUE(rows[0].iteration.compute_exact);
  EXPECT_FALSE(rows[1].iteration.compute_exact);
  EXPECT_NEAR(rows[1].iteration.backward_s, 2 * rows[0].iteration.backward_s, 1e-15);
  r.values = {1.5};
  EXPECT_THROW(sweep(profile(), r), ModelError);
}

TEST(WhatIf, GpusAxisTakesWholeNodesOrOnePartNode) {
  EXPECT_EQ(parse_axis("gpus"), Axis::Gpus);  // total GPUs, not nodes
  EXPECT_EQ(parse_axis("nodes"), Axis::Nodes);
  EXPECT_EQ(split_gpus(2, 4), std::make_pair(1, 2));
  EXPECT_EQ(split_gpus(4, 4), std::make_pair(1, 4));
  EXPECT_EQ(split_gpus(12, 4), std::make_pair(3, 4));
  try {
    split_gpus(6, 4);
    FAIL() << "no throw";
  } catch (const ModelError& e) {
    const std::string m = e.what();
    for (const char* s : {"gpus = 6", "4 GPUs", "use 4 or 8"}) EXPECT_NE(m.find(s), std::string::npos) << m;
  }
  EXPECT_THROW(split_gpus(0, 4), ModelError);
  SweepRequest r;
  r.axis = Axis::Gpus;
  r.values = {2, 4, 8, 32};
  r.schemes = {"none"};
  auto rows = sweep(profile(), r);
  ASSERT_EQ(rows.size(), 4u);
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].iteration.world, int(r.values[i]));
  // One node of 2 GPUs talks over the intra level only: faster than 2 nodes of 4.
  EXPECT_LT(rows[0].iteration.exposed_s, rows[2].iteration.exposed_s);
  r.values = {6};
  EXPECT_THROW(sweep(profile(), r), ModelError);
}

TEST(WhatIf, TtaFollowsTheGlobalBatchAlongSweeps) {
  // Reference B0 = 2 nodes x 4 GPUs x 32 = 256 = B_crit (default): doubling the global
  // batch (GPUs or per-GPU batch) takes (1 + 256/512) / (1 + 1) = 0.75 of the iterations.
  const Profile p = profile();
  SweepRequest r;
  r.schemes = {"none"};
  for (auto [axis, lo, hi] : {std::tuple{Axis::Gpus, 8.0, 16.0}, std::tuple{Axis::Nodes, 2.0, 4.0},
                              std::tuple{Axis::BatchSize, 32.0, 64.0}}) {
    r.axis = axis;
    r.values = {lo, hi};
    auto rows = sweep(p, r);
    ASSERT_TRUE(rows[0].tta && rows[1].tta) << axis_name(axis);
    EXPECT_DOUBLE_EQ(*rows[0].tta->iterations, 1000) << axis_name(axis);
    EXPECT_DOUBLE_EQ(*rows[1].tta->iterations, 750) << axis_name(axis);
    EXPECT_DOUBLE_EQ(rows[1].tta->global_batch, 512) << axis_name(axis);
    EXPECT_NEAR(*rows[1].tta->tta_s, 750 * rows[1].iteration.total_s, 1e-9);
  }
  // B_crit = 0 restores batch-independent iterations; a larger B_crit gets closer to 1/B.
  Profile q = p;
  q.convergence.critical_batch_size = 0.0;
  r.axis = Axis::Gpus;
  r.values = {8, 32};
  EXPECT_DOUBLE_EQ(*sweep(q, r)[1].tta->iterations, 1000);
  q.convergence.critical_batch_size = 1e6;
  EXPECT_NEAR(*sweep(q, r)[1].tta->iterations, 250, 1);
  // Bandwidth does not change the batch: no rescaling.
  r.axis = Axis::Bandwidth;
  r.values = {1, 100};
  for (const auto& row : sweep(p, r)) EXPECT_DOUBLE_EQ(*row.tta->iterations, 1000);
}

TEST(WhatIf, ComputeSpeedupMakesCommunicationMatterMore) {
  SweepRequest r;
  r.axis = Axis::ComputeSpeedup;
  r.values = {1, 3};
  r.schemes = {"none"};
  auto rows = sweep(profile(), r);
  // Network unchanged: the exposed share grows.
  EXPECT_GT(rows[1].iteration.exposed_s / rows[1].iteration.total_s,
            rows[0].iteration.exposed_s / rows[0].iteration.total_s);
}

TEST(WhatIf, RatioNeededIsTightAgainstDirectEvaluation) {
  const Profile p = profile();
  model::Setup s;
  Conditions c;
  c.inter_bandwidth_gbps = 1;
  auto need = ratio_for_linear_scaling(p, s, c, 0.10);
  ASSERT_TRUE(need.ratio.has_value()) << need.note;
  EXPECT_GT(*need.ratio, 1.0);
  Predictor pred(p, s);
  Conditions at = c, below = c;
  at.wire_scale = 1 / (*need.ratio * (1 + 1e-9));
  below.wire_scale = 1 / (*need.ratio * 0.99);
  EXPECT_LE(pred.iteration_s(at), need.target_s * (1 + 1e-12));
  EXPECT_GT(pred.iteration_s(below), need.target_s);
  // Within 0 of linear can't be reached: the last bucket's latency is never hidden.
  EXPECT_FALSE(ratio_for_linear_scaling(p, s, c, 0.0).ratio.has_value());
}

TEST(WhatIf, CodecTrade) {
  if (!scheme_registered("fp16")) GTEST_SKIP() << "fp16 not registered yet";
  model::Setup s;
  s.scheme = "fp16";
  s.mode = CompressionMode::AfterBackward;
  auto rows = codec_ratio_trade(profile(), s, {}, {1, 2, 4}, 1.0);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_DOUBLE_EQ(rows[2].bytes_factor, 4);
  EXPECT_NEAR(rows[1].iteration.encode_s, rows[0].iteration.encode_s / 2, 1e-15);
  EXPECT_NEAR(rows[1].iteration.wire_bytes, rows[0].iteration.wire_bytes * 2, 1e-6);
}

TEST(WhatIf, CrossoverConsistentWithDirectEvaluation) {
  if (!scheme_registered("fp16")) GTEST_SKIP() << "fp16 not registered yet";
  const Profile p = profile();
  model::Setup s;
  s.mode = CompressionMode::AfterBackward;
  auto x = crossover_bandwidth(p, "fp16", "none", s, {}, 0.1, 1000);
  ASSERT_TRUE(x.gbps.has_value()) << x.note;
  EXPECT_TRUE(x.scheme_wins_below);  // fp16 halves bytes but pays a codec cost
  model::Setup a = s, b = s;
  a.scheme = "fp16";
  b.scheme = "none";
  Predictor pa(p, a), pb(p, b);
  Conditions lo, hi;
  lo.inter_bandwidth_gbps = *x.gbps * 0.95;
  hi.inter_bandwidth_gbps = *x.gbps * 1.05;
  EXPECT_LT(pa.iteration_s(lo), pb.iteration_s(lo));
  EXPECT_GT(pa.iteration_s(hi), pb.iteration_s(hi));
  // Out of range: none.
  auto none = crossover_bandwidth(p, "fp16", "none", s, {}, 0.1, 0.2);
  EXPECT_FALSE(none.gbps.has_value());
  EXPECT_NE(none.note.find("no crossover"), std::string::npos);
  EXPECT_THROW(crossover_bandwidth(p, "fp16", "none", s, {}, 5, 1), ModelError);
}

TEST(WhatIf, ExpandCandidates) {
  EXPECT_EQ(expand_candidates("powersgd:rank={1|2|4}"),
            (std::vector<std::string>{"powersgd:rank=1", "powersgd:rank=2", "powersgd:rank=4"}));
  EXPECT_EQ(expand_candidates("topkc:k={0.1|0.01},chunk={64|256}").size(), 4u);
  EXPECT_EQ(expand_candidates("none"), (std::vector<std::string>{"none"}));
  EXPECT_THROW(expand_candidates("topk:k={0.1"), ModelError);
  EXPECT_THROW(expand_candidates("topk:k={0.1||0.2}"), ModelError);
}

TEST(WhatIf, TtaCrossoverAccountsForIterations) {
  if (!scheme_registered("fp16")) GTEST_SKIP() << "fp16 not registered yet";
  // fp16 needing 2x the iterations can never win on TTA unless twice as fast per
  // iteration: its crossover moves to lower bandwidth (or vanishes).
  Profile p = profile();
  model::Setup s;
  s.mode = CompressionMode::AfterBackward;
  auto it = crossover_bandwidth(p, "fp16", "none", s, {}, 0.01, 1000, Metric::Iteration);
  p.convergence.schemes["fp16"] = {std::nullopt, std::nullopt, std::nullopt, 2000.0, std::nullopt};
  auto tta = crossover_bandwidth(p, "fp16", "none", s, {}, 0.01, 1000, Metric::Tta);
  ASSERT_TRUE(it.gbps.has_value());
  if (tta.gbps) EXPECT_LT(*tta.gbps, *it.gbps);
  p.convergence.schemes["fp16"].reaches_target = false;
  auto never = crossover_bandwidth(p, "fp16", "none", s, {}, 0.01, 1000, Metric::Tta);
  EXPECT_FALSE(never.gbps.has_value());
  EXPECT_NE(never.note.find("never"), std::string::npos);
}

TEST(WhatIf, RecommendationOrder) {
  Profile p = profile();
  std::vector<std::string> cands = {"nosuchscheme", "none"};
  if (scheme_registered("topk:k=0.01")) {
    cands.push_back("topk:k=0.01");
    p.compressors["topk:k=0.01"] = {{1e-3, 0}, {1e-3, 0, 0}, 0};
    p.convergence.schemes["topk:k=0.01"] = {0.95, std::nullopt, false, std::nullopt, std::nullopt};
  }
  if (scheme_registered("fp16")) cands.push_back("fp16");
  auto rec = recommend(p, cands, model::Setup{}, {}, Metric::Tta);
  ASSERT_EQ(rec.size(), cands.size());
  EXPECT_TRUE(rec.back().skipped.find("nosuchscheme") != std::string::npos) << rec.back().skipped;
  EXPECT_TRUE(rec.front().tta && rec.front().tta->tta_s);
  for (size_t i = 1; i < rec.size(); ++i)
    if (rec[i].tta && rec[i].tta->tta_s) EXPECT_LE(*rec[i - 1].tta->tta_s, *rec[i].tta->tta_s);
  for (const auto& r : rec)
    if (r.scheme == "topk:k=0.01") EXPECT_EQ(r.tta->status, TtaStatus::NeverReaches);
  auto cands_default = default_candidates();
  ASSERT_FALSE(cands_default.empty());
  EXPECT_EQ(cands_default.front(), "none");
}

TEST(WhatIf, RecommendationRanksUncertainAfterReaching) {
  if (!scheme_registered("fp16") || !scheme_registered("topk:k=0.01")) GTEST_SKIP() << "fp16 or topk not registered";
  // topk's pilot is undecided but its point estimate is the fastest TTA; fp16 reaches the
  // target for sure, slower. By TTA fp16 comes first, topk next (still ranked, not dropped),
  // the never-reaching one last; by iteration time the status does not matter.
  Profile p = profile();
  p.compressors["topk:k=0.01"] = {{1e-3, 0}, {1e-3, 0, 0}, 0};
  model::PilotFigures unsure;
  unsure.status = "uncertain";
  unsure.basis = "pilot-multiplier";
  unsure.multiplier = 0.5;
  p.convergence.schemes["topk:k=0.01"].pilot = unsure;
  model::PilotFigures sure = unsure;
  sure.status = "reaches";
  sure.multiplier = 1.5;
  p.convergence.schemes["fp16"].pilot = sure;
  model::PilotFigures no;
  no.status = "never";
  p.convergence.schemes["none"].pilot = no;
  auto rec = recommend(p, {"topk:k=0.01", "none", "fp16"}, model::Setup{}, {}, Metric::Tta);
  ASSERT_EQ(rec.size(), 3u);
  EXPECT_EQ(rec[0].scheme, "fp16");
  EXPECT_EQ(rec[1].scheme, "topk:k=0.01");
  ASSERT_TRUE(rec[1].tta && rec[1].tta->tta_s && rec[0].tta->tta_s);
  EXPECT_EQ(rec[1].tta->status, TtaStatus::Uncertain);
  EXPECT_LT(*rec[1].tta->tta_s, *rec[0].tta->tta_s);  // faster on its point estimate, ranked after
  EXPECT_EQ(rec[2].scheme, "none");
  auto by_time = recommend(p, {"fp16", "topk:k=0.01"}, model::Setup{}, {}, Metric::Iteration);
  ASSERT_EQ(by_time.size(), 2u);
  EXPECT_LE(by_time[0].iteration->total_s, by_time[1].iteration->total_s);
}

}  // namespace
}  // namespace gcu::model
