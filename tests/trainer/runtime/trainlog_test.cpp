// Tests for the JSON-lines log and timing summaries (trainer/runtime/trainlog.h).
#include "trainer/runtime/trainlog.h"

#include "trainer/runtime/train_options.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace gcu::trainer {
namespace {

TEST(Quantiles, InterpolatesLikeNumpy) {
  const auto q = quantiles({4, 1, 3, 2, 5});
  EXPECT_DOUBLE_EQ(q.median, 3.0);
  EXPECT_DOUBLE_EQ(q.p10, 1.4);  // 0.1 * 4 = 0.4 of the way from 1 to 2
  EXPECT_DOUBLE_EQ(q.p90, 4.6);
  EXPECT_DOUBLE_EQ(q.mean, 3.0);
  EXPECT_EQ(q.n, 5);
  EXPECT_EQ(quantiles({}).n, 0);
}

TEST(TimingSummary, SummarizesEachField) {
  TimingSummary s;
  for (int i = 1; i <= 3; ++i) {
    IterTimes t;
    t.total_s = i;
    t.forward_s = 10 * i;
    s.add(t);
  }
  const auto j = s.to_json();
  EXPECT_DOUBLE_EQ(j["total_s"]["median"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["forward_s"]["median"].get<double>(), 20.0);
  EXPECT_EQ(j["backward_s"]["n"].get<int64_t>(), 3);
}

TEST(JsonLinesWriter, WritesTmpThenRenames) {
  const auto dir = std::filesystem::temp_directory_path() / ("gcu_log_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / "run.jsonl").string();
  {
    JsonLinesWriter w(path);
    w.write({{"type", "header"}, {"schema", kTrainLogSchema}});
    EXPECT_NE(w.temp_path().find(path + ".tmp."), std::string::npos) << w.temp_path();
    EXPECT_TRUE(std::filesystem::exists(w.temp_path()));
    EXPECT_FALSE(std::filesystem::exists(path));
    w.write({{"type", "iter"}, {"iter", 0}});
  }
  std::ifstream f(path);
  std::string a, b;
  std::getline(f, a);
  std::getline(f, b);
  EXPECT_EQ(nlohmann::json::parse(a)["schema"], "gcu.trainlog/1");
  EXPECT_EQ(nlohmann::json::parse(b)["iter"], 0);
  std::filesystem::remove_all(dir);
}

// The output-file policy: a symlink at the log path is refused, its target untouched.
TEST(JsonLinesWriter, RefusesASymlink) {
  const auto dir = std::filesystem::temp_directory_path() / ("gcu_logl_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto target = dir / "victim.txt";
  { std::ofstream(target) << "keep"; }
  std::filesystem::create_symlink(target, dir / "run.jsonl");
  try {
    JsonLinesWriter w((dir / "run.jsonl").string());
    FAIL() << "no error";
  } catch (const TrainError& e) {
    EXPECT_NE(std::string(e.what()).find("symbolic link"), std::string::npos) << e.what();
  }
  std::ifstream f(target);
  std::string s;
  std::getline(f, s);
  EXPECT_EQ(s, "keep");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gcu::trainer
