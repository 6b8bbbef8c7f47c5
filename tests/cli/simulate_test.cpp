// `gcu simulate` end to end: --help teaches with examples; a bandwidth sweep writes CSV
// (header + one row per point and scheme), JSON and a Chrome trace that parse; bad
// profiles, overrides, sweeps and schemes give "gcu: error: ..." naming the problem and
// exit code 2.
#include "cli_test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {
namespace fs = std::filesystem;

using gcu::cli_test::Result;
using gcu::cli_test::gcu;
using gcu::cli_test::slurp;

class SimulateCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gcu_cli_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string at(const char* name) const { return (dir_ / name).string(); }
  // The shipped ResNet-50 profile with one field changed, written to a temp file.
  std::string broken_profile(const char* pointer, const nlohmann::json& value) const {
    auto j = nlohmann::json::parse(slurp(fs::path(GCU_SOURCE_DIR) / "data/profiles/v100-resnet50.json"));
    j[nlohmann::json::json_pointer(pointer)] = value;
    const std::string f = at("broken.json");
    std::ofstream(f) << j.dump();
    return f;
  }
  fs::path dir_;
};

const char* kProfile = "data/profiles/v100-resnet50.json";

TEST_F(SimulateCli, HelpTeachesWithExamples) {
  const Result r = gcu("simulate --help");
  EXPECT_EQ(r.rc, 0) << r.out;
  for (const char* s : {"Examples:", "--sweep", "--profile", "--set", "--trace", "--plot", "crossover", "recommend",
                        "bandwidth_gbps=1:40:40"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  EXPECT_EQ(gcu("--help").rc, 0);
  EXPECT_NE(gcu("--help").out.find("simulate"), std::string::npos);
}

TEST_F(SimulateCli, BandwidthSweepWritesCsvJsonTrace) {
  const Result r = gcu(std::string("simulate -p ") + kProfile +
                    " --schemes none,fp16,powersgd:rank=4,topk:k=0.01 --sweep bandwidth_gbps=1:40:40 --csv " +
                    at("s.csv") + " --json " + at("s.json") + " --trace " + at("t.json"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("vs FP16"), std::string::npos);  // the table
  // CSV: header + 40 points x 4 schemes
  std::istringstream csv(slurp(at("s.csv")));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line.rfind("axis,x,scheme,model,mode,gpus,batch_size,inter_bandwidth_gbps,iteration_s,speedup_vs_fp32,"
                       "speedup_vs_fp16",
                       0),
            0u)
      << line;
  int rows = 0;
  while (std::getline(csv, line)) rows += !line.empty();
  EXPECT_EQ(rows, 160);
  // JSON
  const auto j = nlohmann::json::parse(slurp(at("s.json")));
  EXPECT_EQ(j["schema"], "gcu.simulate/1");
  EXPECT_EQ(j["rows"].size(), 160u);
  EXPECT_EQ(j["sweep"]["values"].size(), 40u);
  // Chrome trace
  const auto t = nlohmann::json::parse(slurp(at("t.json")));
  EXPECT_EQ(t["displayTimeUnit"], "ms");
  int complete = 0;
  for (const auto& e : t["traceEvents"])
    if (e["ph"] == "X") {
      ++complete;
      EXPECT_TRUE(e.contains("ts") && e.contains("dur") && e.contains("pid") && e.contains("tid"));
    }
  EXPECT_GT(complete, 4 * 3);  // forward, backward, optimizer + collectives for each of 4 schemes
}

TEST_F(SimulateCli, PlotWhenGnuplotIsThere) {
  if (std::system("gnuplot --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const Result r = gcu(std::string("simulate -p ") + kProfile + " --sweep gpus=4,8,16,32 --plot " + at("p.png"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(slurp(at("p.png")).substr(1, 3), "PNG");
  EXPECT_TRUE(fs::exists(at("p.gp")));
}

TEST_F(SimulateCli, FormatsOnStdout) {
  const Result c = gcu(std::string("simulate -p ") + kProfile + " --format csv --schemes none,fp16 2>/dev/null");
  ASSERT_EQ(c.rc, 0) << c.out;
  EXPECT_EQ(c.out.rfind("axis,x,scheme", 0), 0u) << c.out;
  const Result j = gcu(std::string("simulate -p ") + kProfile + " --format json --engine closed 2>/dev/null");
  ASSERT_EQ(j.rc, 0) << j.out;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["setup"]["iteration_model"], "closed-form");
}

// Parameter values the profile did not measure (model/codec_cost.h): PowerSGD rank 3 is
// interpolated between ranks 2 and 4 (a note), ef(topkc) adds an assumed error-feedback
// overhead (an assumption line); a scheme with no measured value at all still stops.
TEST_F(SimulateCli, UnmeasuredParameterValuesAreCosted) {
  const Result j = gcu(std::string("simulate -p ") + kProfile +
                       " --schemes 'powersgd:rank=3,ef(topkc)' --format json 2>/dev/null");
  ASSERT_EQ(j.rc, 0) << j.out;
  const auto doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc["rows"].size(), 2u);
  for (const auto& row : doc["rows"]) {
    const double t = row["iteration_s"].get<double>();
    EXPECT_TRUE(std::isfinite(t) && t > 0) << row.dump();
  }
  const std::string notes = doc["notes"].dump(), assumptions = doc["assumptions"].dump();
  EXPECT_NE(notes.find("powersgd:rank=3,warm_start=true,min_rate=2 interpolated"), std::string::npos) << notes;
  EXPECT_NE(assumptions.find("error-feedback overhead of ef(topkc:k=0.01,chunk=256)"), std::string::npos)
      << assumptions;
  const Result t = gcu(std::string("simulate -p ") + kProfile + " --schemes powersgd:rank=64");
  ASSERT_EQ(t.rc, 0) << t.out;
  EXPECT_NE(t.out.find("assumption: encode/decode cost of powersgd:rank=64,warm_start=true,min_rate=2 "
                       "extrapolated (linear in rank) from rank=16..32 measured"),
            std::string::npos)
      << t.out;

  const std::string f = broken_profile("/compressors", nlohmann::json::object());
  const Result e = gcu("simulate -p " + f + " --schemes qsgd:levels=7");
  EXPECT_EQ(e.rc, 2) << e.out;
  EXPECT_NE(e.out.find("add field compressors.\"qsgd:levels=7\""), std::string::npos) << e.out;
}

TEST_F(SimulateCli, InconsistentProfileNamesTheField) {
  const std::string f = broken_profile("/cluster/gamma_stretch", 0.5);
  const Result r = gcu("simulate -p " + f);
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("gcu: error: " + f + ": /cluster/gamma_stretch: expected"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("got 0.5"), std::string::npos) << r.out;
}

TEST_F(SimulateCli, WrongTypeAndParameterTotal) {
  const Result a = gcu("simulate -p " + broken_profile("/cluster/levels/inter/bandwidth_gbps", "fast"));
  EXPECT_EQ(a.rc, 2);
  EXPECT_NE(a.out.find("/cluster/levels/inter/bandwidth_gbps: expected"), std::string::npos) << a.out;
  const Result b = gcu("simulate -p " + broken_profile("/model/parameters", 1));
  EXPECT_EQ(b.rc, 2);
  EXPECT_NE(b.out.find("/model/parameters: expected the sum of the tensor sizes"), std::string::npos) << b.out;
}

TEST_F(SimulateCli, MalformedAndMissingFiles) {
  std::ofstream(at("bad.json")) << "{\"schema\": \"gcu.profile/2\", ";
  const Result a = gcu("simulate -p " + at("bad.json"));
  EXPECT_EQ(a.rc, 2);
  EXPECT_NE(a.out.find("gcu: error: " + at("bad.json")), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("valid JSON"), std::string::npos) << a.out;
  const Result b = gcu("simulate -p " + at("absent.json"));
  EXPECT_EQ(b.rc, 2);
  EXPECT_NE(b.out.find("absent.json"), std::string::npos) << b.out;
}

TEST_F(SimulateCli, OverridesApplyAndTyposAreCaught) {
  const Result ok = gcu(std::string("simulate -p ") + kProfile + " --set cluster.gamma_stretch=1.1 --set /cluster/nodes=8");
  EXPECT_EQ(ok.rc, 0) << ok.out;
  EXPECT_NE(ok.out.find("32 GPUs (8 nodes x 4)"), std::string::npos) << ok.out;
  const Result typo = gcu(std::string("simulate -p ") + kProfile + " --set cluster.gama=1.1");
  EXPECT_EQ(typo.rc, 2);
  EXPECT_NE(typo.out.find("/cluster/gama"), std::string::npos) << typo.out;
  EXPECT_NE(typo.out.find("--set cluster.gama=1.1"), std::string::npos) << typo.out;
}

TEST_F(SimulateCli, BadSweepsAndSchemes) {
  const Result a = gcu(std::string("simulate -p ") + kProfile + " --sweep latency=1,2");
  EXPECT_EQ(a.rc, 2);
  EXPECT_NE(a.out.find("unknown sweep axis 'latency'"), std::string::npos) << a.out;
  const Result b = gcu(std::string("simulate -p ") + kProfile + " --schemes none,zipk:k=0.1");
  EXPECT_EQ(b.rc, 2);
  EXPECT_NE(b.out.find("zipk"), std::string::npos) << b.out;
  const Result c = gcu(std::string("simulate -p ") + kProfile + " --sweep gpus=6");
  EXPECT_EQ(c.rc, 2);
  EXPECT_NE(c.out.find("gpus = 6"), std::string::npos) << c.out;
  EXPECT_NE(gcu("simulate").rc, 0);  // --profile is required
}

TEST_F(SimulateCli, WhatIfSubcommands) {
  const Result a = gcu(std::string("simulate crossover -p ") + kProfile + " --schemes powersgd:rank=4");
  EXPECT_EQ(a.rc, 0) << a.out;
  EXPECT_NE(a.out.find("crossover (Gbps)"), std::string::npos) << a.out;
  const Result b = gcu(std::string("simulate recommend -p ") + kProfile + " --top 3");
  EXPECT_EQ(b.rc, 0) << b.out;
  EXPECT_NE(b.out.find("best: "), std::string::npos) << b.out;
  const Result c = gcu(std::string("simulate ratio -p ") + kProfile + " --within 0.2 --gpus 16");
  EXPECT_EQ(c.rc, 0) << c.out;
  EXPECT_NE(c.out.find("16 GPUs"), std::string::npos) << c.out;
}

TEST_F(SimulateCli, WhatIfAnalysesAsJsonAndCsv) {
  // JSON on stdout for each analysis: versioned schema, one row per scheme / k / candidate.
  struct Case {
    const char* args;
    const char* analysis;
    size_t rows;
  };
  for (const Case& c : {Case{"crossover --schemes powersgd:rank=4,topk:k=0.01", "crossover", 2},
                        Case{"ratio --schemes none,fp16", "ratio", 2},
                        Case{"trade --schemes topk:k=0.01 --k 1,2,4,8", "trade", 4},
                        Case{"recommend --candidates 'none,fp16,powersgd:rank={2|4}'", "recommend", 4}}) {
    const Result r = gcu(std::string("simulate ") + c.args + " -p " + kProfile + " --format json 2>/dev/null");
    ASSERT_EQ(r.rc, 0) << c.args << "\n" << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["schema"], std::string("gcu.simulate.") + c.analysis + "/1") << c.args;
    EXPECT_EQ(j["rows"].size(), c.rows) << c.args;
    EXPECT_EQ(j["setup"]["gpus"], 64) << c.args;
    const Result v = gcu(std::string("simulate ") + c.args + " -p " + kProfile + " --format csv 2>/dev/null");
    ASSERT_EQ(v.rc, 0) << c.args << "\n" << v.out;
    EXPECT_EQ(size_t(std::count(v.out.begin(), v.out.end(), '\n')), c.rows + 1) << v.out;
  }
}

TEST_F(SimulateCli, OutputFileIsWrittenWhole) {
  const Result r = gcu(std::string("simulate recommend -p ") + kProfile + " --candidates none,fp16 --format json --mkdir -o " +
                       at("sub/rec.json"));  // --mkdir: gcu creates no directory unless asked
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out.find("\"schema\""), std::string::npos) << r.out;  // not on stdout
  EXPECT_NE(r.out.find("wrote JSON " + at("sub/rec.json")), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(at("sub/rec.json")));
  EXPECT_EQ(j["schema"], "gcu.simulate.recommend/1");
  for (const auto& e : fs::directory_iterator(dir_ / "sub"))  // no temporary left behind
    EXPECT_EQ(e.path().filename(), "rec.json");
  const Result s = gcu(std::string("simulate -p ") + kProfile + " --format csv -o " + at("sweep.csv"));
  ASSERT_EQ(s.rc, 0) << s.out;
  EXPECT_EQ(slurp(at("sweep.csv")).rfind("axis,x,scheme", 0), 0u);
  const Result bad = gcu(std::string("simulate ratio -p ") + kProfile + " --format xml");
  EXPECT_NE(bad.rc, 0);
  // Sweep-table outputs are not silently ignored by an analysis.
  const Result csv = gcu(std::string("simulate trade -p ") + kProfile + " --csv " + at("t.csv"));
  EXPECT_EQ(csv.rc, 2);
  EXPECT_NE(csv.out.find("--csv " + at("t.csv") + " applies to the sweep table"), std::string::npos) << csv.out;
}

TEST_F(SimulateCli, GpusSweepAndConflicts) {
  const Result ok = gcu(std::string("simulate -p ") + kProfile + " --schemes none --sweep gpus=2,4,8 --format json");
  ASSERT_EQ(ok.rc, 0) << ok.out;
  const auto j = nlohmann::json::parse(ok.out);
  ASSERT_EQ(j["rows"].size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(j["rows"][i]["gpus"], j["sweep"]["values"][i].get<double>());
  // TTA follows the global batch: more GPUs, fewer iterations; the law is stated.
  EXPECT_LT(j["rows"][2]["tta"]["iterations"].get<double>(), j["rows"][0]["tta"]["iterations"].get<double>());
  EXPECT_FALSE(j["assumptions"].empty());
  EXPECT_TRUE(j["convergence"].contains("critical_batch_size"));
  const Result both = gcu(std::string("simulate -p ") + kProfile + " --gpus 16 --sweep gpus=8,16");
  EXPECT_EQ(both.rc, 2);
  EXPECT_NE(both.out.find("--gpus 16"), std::string::npos) << both.out;
  const Result odd = gcu(std::string("simulate -p ") + kProfile + " --gpus 10");
  EXPECT_EQ(odd.rc, 2);
  EXPECT_NE(odd.out.find("gpus = 10"), std::string::npos) << odd.out;
  EXPECT_NE(odd.out.find("use 8 or 12"), std::string::npos) << odd.out;
  const Result neg = gcu(std::string("simulate -p ") + kProfile + " --gpus -4");
  EXPECT_NE(neg.rc, 0);
}

}  // namespace

// ---- honest defaults -------------------------------------------------------------------
namespace {

TEST_F(SimulateCli, AssumedConvergenceIsSaidInEveryOutput) {
  const Result t = gcu(std::string("simulate -p ") + kProfile);
  ASSERT_EQ(t.rc, 0) << t.out;
  EXPECT_NE(t.out.find("convergence: ASSUMED"), std::string::npos) << t.out;
  const Result c = gcu(std::string("simulate -p ") + kProfile + " --format csv --schemes none");
  ASSERT_EQ(c.rc, 0) << c.out;
  EXPECT_NE(c.out.find(",convergence_source\n"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find(",assumed\n"), std::string::npos) << c.out;
  const Result j = gcu(std::string("simulate -p ") + kProfile + " --format json --schemes none");
  EXPECT_EQ(nlohmann::json::parse(j.out)["convergence"]["source"], "assumed");
  // A calibrated profile says so, without the warning.
  const Result cal = gcu("simulate -p data/profiles/cpu-2rank-cnn.json --schemes none");
  ASSERT_EQ(cal.rc, 0) << cal.out;
  EXPECT_EQ(cal.out.find("ASSUMED"), std::string::npos) << cal.out;
  EXPECT_NE(cal.out.find("convergence: calibrated"), std::string::npos) << cal.out;
  // An unknown source is refused with the field named.
  const Result bad = gcu(std::string("simulate -p ") + kProfile + " --set convergence.source=measured-ish");
  EXPECT_EQ(bad.rc, 2) << bad.out;
  EXPECT_NE(bad.out.find("/convergence/source"), std::string::npos) << bad.out;
}

TEST_F(SimulateCli, RecommendAndCrossoverRankByIterationTimeUnlessConvergenceIsMeasured) {
  const std::string bert = "data/profiles/v100-bert-base.json";
  const Result r = gcu("simulate recommend -p " + bert + " --bandwidth 25 --top 3");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("ranked by predicted iteration time"), std::string::npos) << r.out;
  const Result t = gcu("simulate recommend -p " + bert + " --bandwidth 25 --top 3 --metric tta");
  EXPECT_NE(t.out.find("time to accuracy, from ASSUMED convergence figures"), std::string::npos) << t.out;
  const Result m = gcu("simulate recommend -p data/profiles/cpu-2rank-cnn.json --top 3");
  EXPECT_NE(m.out.find("ranked by predicted time to accuracy (convergence: calibrated)"), std::string::npos) << m.out;
  const Result x = gcu("simulate crossover -p " + bert + " --schemes powersgd:rank=4 --format json");
  ASSERT_EQ(x.rc, 0) << x.out;
  const auto j = nlohmann::json::parse(x.out);
  EXPECT_EQ(j["convergence_source"], "assumed");
  EXPECT_EQ(j["parameters"]["metric"], "iteration");
}

TEST_F(SimulateCli, ModeAutoRunsEverySchemeAsTheTrainerDoesAndSaysWhy) {
  const Result r = gcu(std::string("simulate -p ") + kProfile + " --schemes none,powersgd:rank=4,topk:k=0.01 --format json");
  ASSERT_EQ(r.rc, 0) << r.out;
  for (const auto& row : nlohmann::json::parse(r.out)["rows"]) EXPECT_EQ(row["mode"], "overlapped") << row["scheme"];
  const Result t = gcu(std::string("simulate -p ") + kProfile + " --schemes powersgd:rank=4");
  EXPECT_NE(t.out.find("mode auto = every scheme overlapped"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("enc+dec (ms)"), std::string::npos) << t.out;
  // Tables show short labels; CSV and JSON the canonical spec.
  const auto row = t.out.find("\npowersgd:rank=4 ");
  ASSERT_NE(row, std::string::npos) << t.out;
  EXPECT_EQ(t.out.substr(row + 1, t.out.find('\n', row + 1) - row - 1).find("warm_start"), std::string::npos) << t.out;
  const Result c = gcu(std::string("simulate -p ") + kProfile + " --schemes powersgd:rank=4 --format csv");
  EXPECT_NE(c.out.find("powersgd:rank=4,warm_start=true,min_rate=2"), std::string::npos) << c.out;
}

TEST_F(SimulateCli, RoughEdges) {
  // A plot name gcu cannot draw is refused before any output.
  const Result p = gcu(std::string("simulate -p ") + kProfile + " --plot '" + at("x.pdf") + "'");
  EXPECT_EQ(p.rc, 2) << p.out;
  EXPECT_EQ(p.out.find("iter (ms)"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find(".png or .svg"), std::string::npos) << p.out;
  // An analysis' help names the options it takes from `gcu simulate`.
  const Result h = gcu("simulate recommend --help");
  EXPECT_NE(h.out.find("Also takes the options of `gcu simulate`"), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("--bandwidth"), std::string::npos) << h.out;
  // A linear bandwidth sweep is drawn on a linear axis; a doubling sweep on a log axis.
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) GTEST_SKIP() << "no gnuplot";
  const Result lin = gcu(std::string("simulate -p ") + kProfile + " --schemes none --sweep bandwidth_gbps=1:40:40 --plot '" +
                         at("lin.png") + "'");
  ASSERT_EQ(lin.rc, 0) << lin.out;
  EXPECT_EQ(slurp(at("lin.gp")).find("set logscale x"), std::string::npos);
  const Result lg = gcu(std::string("simulate -p ") + kProfile + " --schemes none --sweep bandwidth_gbps=1,2,4,8,16,32,64 --plot '" +
                        at("log.png") + "'");
  ASSERT_EQ(lg.rc, 0) << lg.out;
  EXPECT_NE(slurp(at("log.gp")).find("set logscale x"), std::string::npos);
}

}  // namespace
