// validate/measure.h and link_rate.h: trainer-log reading, spreads, the link-rate fit.
#include "validate/link_rate.h"
#include "validate/measure.h"

#include <gtest/gtest.h>

namespace gcu::validate {

namespace {
std::string iter_line(int i, bool measured, double total) {
  return R"({"type":"iter","iter":)" + std::to_string(i) + R"(,"measured":)" + (measured ? "true" : "false") +
         R"(,"data_s":0.001,"forward_s":0.01,"backward_s":0.02,"comm_exposed_s":0.003,"encode_s":0.0005,)"
         R"("collective_s":0.004,"decode_s":0.0002,"optimizer_s":0.002,"total_s":)" +
         std::to_string(total) + R"(,"wire_bytes":100,"loss":2.3,"lr":0.1})";
}
const char* kHeader =
    R"({"type":"header","schema":"gcu.trainlog/1","rank":0,"world_size":2,"model":"cnn","scheme":"fp16","mode":"overlap",)"
    R"("batch_per_rank":32,"threads":1,"wire_bytes_per_iter":413844,"gloo_interfaces":["lo"]})";
}  // namespace

TEST(TrainLog, KeepsMeasuredIterationsOnly) {
  std::string t = std::string(kHeader) + "\n" + iter_line(0, false, 1.0) + "\n";
  for (int i = 1; i <= 5; ++i) t += iter_line(i, true, 0.03 + 0.001 * i) + "\n";
  t += R"({"type":"summary","iters_run":6})" "\n";
  const TrainLog l = parse_trainlog(t, "x.jsonl");
  EXPECT_EQ(l.scheme, "fp16");
  EXPECT_EQ(l.world_size, 2);
  EXPECT_TRUE(l.complete);
  ASSERT_EQ(l.iters.size(), 5u);
  EXPECT_DOUBLE_EQ(at(l.iters[0], Component::Exposed), 0.003);
  EXPECT_DOUBLE_EQ(at(l.iters[4], Component::Total), 0.035);
}

TEST(TrainLog, ClearErrors) {
  EXPECT_THROW(parse_trainlog("not json\n", "a"), ValidateError);
  EXPECT_THROW(parse_trainlog(iter_line(0, true, 1) + "\n", "a"), ValidateError);  // no header
  EXPECT_THROW(parse_trainlog(R"({"type":"header","schema":"other/2"})", "a"), ValidateError);
}

// `gcu validate --reuse` reads logs from a directory the user names: a count that is not
// an integer in range (1e300 cast to int is undefined behaviour), a time that is not a
// number >= 0 (a negative or a string one would reach the report's medians) or a field of the wrong type is a ValidateError naming the file, the line and the field.
TEST(TrainLog, HostileFieldsAreErrorsNamingTheLineAndField) {
  const auto message = [](const std::string& text) {
    try {
      parse_trainlog(text, "r.jsonl");
    } catch (const ValidateError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  std::string h = kHeader;
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string x = h;
    x.replace(x.find(from), from.size(), to);
    return x;
  };
  EXPECT_NE(message(with(R"("world_size":2)", R"("world_size":1e300)")).find("r.jsonl:1: 'world_size'"),
            std::string::npos);
  EXPECT_NE(message(with(R"("batch_per_rank":32)", R"("batch_per_rank":2.5)")).find("'batch_per_rank'"),
            std::string::npos);
  EXPECT_NE(message(with(R"("scheme":"fp16")", R"("scheme":7)")).find("r.jsonl:1:"), std::string::npos);
  std::string it = iter_line(1, true, 0.03);
  it.replace(it.find("\"forward_s\":0.01"), 16, "\"forward_s\":\"fast\"");
  EXPECT_NE(message(h + "\n" + it + "\n").find("r.jsonl:2: 'forward_s' is not a finite number >= 0"), std::string::npos)
      << message(h + "\n" + it + "\n");
  it = iter_line(1, true, 0.03);
  it.replace(it.find("\"forward_s\":0.01"), 16, "\"forward_s\":1e999");  // the JSON reader refuses it
  EXPECT_NE(message(h + "\n" + it + "\n").find("r.jsonl:2: not JSON"), std::string::npos);
  it = iter_line(1, true, -0.5);
  EXPECT_NE(message(h + "\n" + it + "\n").find("'total_s'"), std::string::npos);
  EXPECT_NE(message(h + "\n" + R"({"type":"iter","measured":true})" + "\n").find("r.jsonl:2:"), std::string::npos);
  EXPECT_EQ(message(h + "\n" + iter_line(1, true, 0.03) + "\n"), "accepted");
}

namespace {
// A log of `world` ranks with one measured iteration per {forward, collective, total}.
TrainLog rank_log(int world, const std::vector<std::array<double, 3>>& its) {
  TrainLog l;
  l.scheme = "none";
  l.mode = "after";
  l.world_size = world;
  l.batch_per_rank = 32;
  l.complete = true;
  for (const auto& [fwd, coll, total] : its) {
    Breakdown b{};
    at(b, Component::Forward) = fwd;
    at(b, Component::Backward) = 0.002;
    at(b, Component::Collective) = coll;
    at(b, Component::Total) = total;
    l.iters.push_back(b);
  }
  return l;
}
}  // namespace

TEST(TrainLog, MergedRanksGiveEachIterationsSlowestRankAndTheMeanTotal) {
  // Iteration 0: rank 1 computes longest, the others wait in their collectives for it.
  // Iteration 1: rank 2 does.
  const TrainLog r0 = rank_log(3, {{0.010, 0.009, 0.021}, {0.010, 0.005, 0.017}});
  const TrainLog r1 = rank_log(3, {{0.014, 0.005, 0.021}, {0.011, 0.004, 0.016}});
  const TrainLog r2 = rank_log(3, {{0.011, 0.008, 0.020}, {0.013, 0.002, 0.018}});
  const TrainLog m = merge_rank_logs({r0, r1, r2});
  EXPECT_EQ(m.rank_logs, 3);
  ASSERT_EQ(m.iters.size(), 2u);
  EXPECT_DOUBLE_EQ(at(m.iters[0], Component::Forward), 0.014);
  EXPECT_DOUBLE_EQ(at(m.iters[0], Component::Collective), 0.005);
  EXPECT_NEAR(at(m.iters[0], Component::Total), (0.021 + 0.021 + 0.020) / 3, 1e-15);
  EXPECT_DOUBLE_EQ(at(m.iters[1], Component::Forward), 0.013);
  EXPECT_NEAR(at(m.iters[1], Component::Total), 0.017, 1e-15);
  ASSERT_EQ(m.straggler_wait_s.size(), 2u);
  EXPECT_NEAR(m.straggler_wait_s[0], (0.009 + 0.005 + 0.008) / 3 - 0.005, 1e-15);
  EXPECT_NEAR(m.straggler_wait_s[1], (0.005 + 0.004 + 0.002) / 3 - 0.002, 1e-15);
  // One rank alone: its own log, no wait.
  const TrainLog one = merge_rank_logs({r0});
  EXPECT_DOUBLE_EQ(at(one.iters[0], Component::Forward), 0.010);
  EXPECT_DOUBLE_EQ(one.straggler_wait_s[0], 0.0);
}

TEST(TrainLog, MergeRefusesLogsOfDifferentRuns) {
  const TrainLog a = rank_log(2, {{0.01, 0.004, 0.02}, {0.01, 0.004, 0.02}});
  TrainLog shorter = rank_log(2, {{0.01, 0.004, 0.02}});
  EXPECT_THROW(merge_rank_logs({a, shorter}), ValidateError);
  TrainLog other = a;
  other.scheme = "fp16";
  EXPECT_THROW(merge_rank_logs({a, other}), ValidateError);
  EXPECT_THROW(merge_rank_logs({}), ValidateError);
}

TEST(Spread, NumpyPercentiles) {
  const Spread s = spread_of({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.p10, 1.9);
  EXPECT_DOUBLE_EQ(s.p90, 9.1);
  EXPECT_EQ(spread_of({}).n, 0);
}

TEST(LinkRate, ASlowLinksSweepGetsTheBudgetToReachItsLargestSizes) {
  EXPECT_EQ(link_sweep_budget_s(parse_link("unlimited")), kLinkSweepBudgetS);
  EXPECT_EQ(link_sweep_budget_s(parse_link("1gbit")), kLinkSweepBudgetS);
  EXPECT_EQ(link_sweep_budget_s(parse_link("500mbit")), kLinkSweepBudgetS);
  EXPECT_EQ(link_sweep_budget_s(parse_link("200mbit")), 150);
  EXPECT_EQ(link_sweep_budget_s(parse_link("10mbit")), 240);
}

TEST(LinkRate, SlopeOfTheAllReduceSweep) {
  // 2 ranks, 1 Gbit/s link: T = 300 us + n * 8e-9 s (2(p-1)/p = 1).
  std::string rows;
  for (double b : {1048576.0, 2097152.0, 4194304.0})
    rows += std::string(rows.empty() ? "" : ",") + R"({"bytes":)" + std::to_string(b) + R"(,"median_s":)" +
            std::to_string(300e-6 + b * 8e-9) + "}";
  const std::string st = R"({"collectives":{"world":2,"sweeps":[{"kind":"allgather","rows":[]},)"
                         R"({"kind":"allreduce","rows":[)" + rows + "]}]}}";
  EXPECT_NEAR(allreduce_rate_gbps(st), 1.0, 2e-3);  // std::to_string keeps 6 decimals
  EXPECT_EQ(allgather_rate_gbps(st), 0.0);            // no all-gather rows: not measured
}

TEST(LinkRate, SlopeOfTheAllGatherSweepCountsTheOutput) {
  // 4 ranks, 0.5 Gbit/s: a ring all-gather of an n-byte output moves (p-1)/p n per rank.
  std::string rows;
  for (double b : {1048576.0, 2097152.0, 4194304.0})
    rows += std::string(rows.empty() ? "" : ",") + R"({"bytes":)" + std::to_string(b) + R"(,"median_s":)" +
            std::to_string(200e-6 + b * 0.75 * 16e-9) + "}";
  const std::string st = R"({"collectives":{"world":4,"sweeps":[{"kind":"allgather","rows":[)" + rows + "]}]}}";
  EXPECT_NEAR(allgather_rate_gbps(st), 0.5, 1e-3);
  EXPECT_EQ(allreduce_rate_gbps(st), 0.0);
}

// A link sweep's state file is read back by --reuse: a world that is not a whole rank
// count (a cast of 1e300 to int is undefined) is a ValidateError naming the field.
TEST(LinkRate, AWorldThatIsNotARankCountIsAnError) {
  for (const char* w : {"1e300", "2.5", "0", "\"2\""}) {
    const std::string st = std::string(R"({"collectives":{"world":)") + w + R"(,"sweeps":[]}})";
    try {
      allgather_rate_gbps(st);
      ADD_FAILURE() << w << ": accepted";
    } catch (const ValidateError& e) {
      EXPECT_NE(std::string(e.what()).find("collectives.world"), std::string::npos) << e.what();
    }
  }
}

}  // namespace gcu::validate
